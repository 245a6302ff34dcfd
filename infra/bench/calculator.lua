-- wrk: POST a typical calculator body (percent basis, buying power, fees, target).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"mode":"stock","direction":"long","entryPrice":"50.25","stopLoss":"48.10","targetPrice":"56.00",' ..
  '"balance":"25000","riskPercent":"1","buyingPower":"50000",' ..
  '"feeSchedule":{"stockPerShareCommission":"0.005","stockMinPerFill":"1","stockMaxPerFill":"0"}}'
