package users_test

import (
	"context"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

const displayCurrencyPath = "/api/users/me/display-currency"

func TestSetDisplayCurrency(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	reg := c.Register("money@example.com", "password1")
	if u := reg.JSON["user"].(map[string]any); u["displayCurrency"] != nil {
		t.Fatalf("a new user has display currency %v", u["displayCurrency"])
	} else if _, ok := u["displayCurrency"]; !ok {
		t.Fatalf("user without a displayCurrency field: %s", reg.Body)
	}
	stored := func(t *testing.T) *string {
		t.Helper()
		var s *string
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT display_currency::text FROM users WHERE email = 'money@example.com'`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}

	t.Run("SignedOut", func(t *testing.T) {
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "Valid", Method: "PUT", Path: displayCurrencyPath, Body: map[string]any{"currency": "EUR"}, Status: 401, Code: "UNAUTHENTICATED"},
		})
	})
	for _, tc := range []struct{ name, in, want string }{
		{"Set", "EUR", "EUR"},
		{"LowercaseUpperCased", "jpy", "JPY"},
		{"Changed", "USD", "USD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Do("PUT", displayCurrencyPath, map[string]any{"currency": tc.in})
			if r.Status != 200 || r.JSON["user"].(map[string]any)["displayCurrency"] != tc.want {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			if me := c.Do("GET", "/api/auth/me", nil); me.JSON["user"].(map[string]any)["displayCurrency"] != tc.want {
				t.Fatalf("me: %s", me.Body)
			}
			if s := stored(t); s == nil || *s != tc.want {
				t.Fatalf("stored %v", s)
			}
		})
	}
	cases := []apitest.Case{
		{Name: "Unknown", Body: map[string]any{"currency": "ABC"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NotMoney", Body: map[string]any{"currency": "XXX"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "TwoLetters", Body: map[string]any{"currency": "US"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "FourLetters", Body: map[string]any{"currency": "USDT"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Padded", Body: map[string]any{"currency": " USD"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Empty", Body: map[string]any{"currency": ""}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Missing", Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Null", Body: `{"currency": null}`, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Number", Body: `{"currency": 840}`, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "UnknownField", Body: `{"currency": "USD", "x": 1}`, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Malformed", Body: `{"currency":`, Status: 400, Code: "INVALID_JSON"},
	}
	for i := range cases {
		cases[i].Method, cases[i].Path = "PUT", displayCurrencyPath
	}
	apitest.Run(t, c, cases)
	if s := stored(t); s == nil || *s != "USD" {
		t.Fatalf("bad input changed the stored currency to %v", s)
	}
}
