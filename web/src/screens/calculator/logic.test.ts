import { describe, expect, it } from 'vitest';
import { calculatorRequest, cappedText, initialForm, sizingStatusText, type CalculatorForm } from './logic';

const form = (over: Partial<CalculatorForm>): CalculatorForm => ({ ...initialForm, entryPrice: '50', stopLoss: '48', ...over });
const broker = {
  id: 'b1',
  stockPerShareCommission: '0.005',
  stockMinPerFill: '1',
  stockMaxPerFill: '0',
  optionsPerContractCommission: '0.65',
  optionsPerContractExchangeFee: '0',
  optionsMinPerFill: '0',
  optionsMaxPerFill: '0',
};

describe('calculatorRequest', () => {
  it('waits for the required fields', () => {
    expect(calculatorRequest(form({ entryPrice: '' }))).toBeNull();
    expect(calculatorRequest(form({ basis: 'percent', balance: '' }))).toBeNull();
    expect(calculatorRequest(form({ basis: 'dollar', dollarRisk: ' ' }))).toBeNull();
  });
  it('sends the percent basis only, with strings as typed', () => {
    expect(calculatorRequest(form({ balance: '25000', riskPercent: '1', dollarRisk: '99', targetPrice: ' 56.00 ' }))).toEqual({
      mode: 'stock',
      direction: 'long',
      entryPrice: '50',
      stopLoss: '48',
      targetPrice: '56.00',
      balance: '25000',
      riskPercent: '1',
    });
  });
  it('sends the dollar basis only', () => {
    const r = calculatorRequest(form({ basis: 'dollar', dollarRisk: '250', balance: '25000', buyingPower: '-5' }));
    expect(r).toEqual({ mode: 'stock', direction: 'long', entryPrice: '50', stopLoss: '48', dollarRisk: '250', buyingPower: '-5' });
  });
  it('sends a fee schedule or manual fees, never both', () => {
    const withSchedule = calculatorRequest(form({ balance: '1000', fees: 'schedule', brokerageId: 'b1', manualFees: '3' }), [broker]);
    expect(withSchedule?.feeSchedule).toEqual({
      stockPerShareCommission: '0.005',
      stockMinPerFill: '1',
      stockMaxPerFill: '0',
      optionsPerContractCommission: '0.65',
      optionsPerContractExchangeFee: '0',
      optionsMinPerFill: '0',
      optionsMaxPerFill: '0',
    });
    expect(withSchedule).not.toHaveProperty('manualFees');
    const manual = calculatorRequest(form({ balance: '1000', fees: 'manual', brokerageId: 'b1', manualFees: '3' }), [broker]);
    expect(manual?.manualFees).toBe('3');
    expect(manual).not.toHaveProperty('feeSchedule');
    expect(calculatorRequest(form({ balance: '1000', fees: 'none', manualFees: '3' }))).not.toHaveProperty('manualFees');
  });
});

describe('sizingStatusText', () => {
  it('explains every sizingStatus in words', () => {
    expect(sizingStatusText({}, form({}))).toBeNull();
    expect(sizingStatusText({ sizingStatus: 'nothing-to-size-against' }, form({ balance: '-10' }))).toMatch(/balance is zero or negative/);
    expect(sizingStatusText({ sizingStatus: 'nothing-to-size-against' }, form({ balance: '1000' }))).toMatch(/does not cover the risk of a single share/);
    expect(sizingStatusText({ sizingStatus: 'nothing-to-size-against' }, form({ basis: 'dollar', mode: 'options' }))).toMatch(/single contract/);
    expect(sizingStatusText({ sizingStatus: 'exceeds-maximum' }, form({}))).toMatch(/Too large/);
    expect(sizingStatusText({ sizingStatus: 'buying-power-zero' }, form({ buyingPower: '0' }))).toMatch(/No buying power/);
    expect(sizingStatusText({ sizingStatus: 'buying-power-zero' }, form({ buyingPower: '10' }))).toMatch(/cannot fund a single share/);
    expect(sizingStatusText({ sizingStatus: 'buying-power-zero' }, form({ buyingPower: '' }))).toMatch(/account balance cannot fund/);
  });
  it('explains a capped size', () => {
    expect(cappedText({ buyingPowerLimited: true }, { buyingPower: '500' })).toMatch(/buying power funds only/);
    expect(cappedText({}, { buyingPower: '500' })).toBeNull();
  });
});
