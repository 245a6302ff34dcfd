package users_test

import (
	"context"
	"slices"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

const onboardingPath = "/api/users/me/onboarding"

func doneSteps(t *testing.T, r apitest.Response) []string {
	t.Helper()
	var done []string
	for _, s := range r.JSON["steps"].([]any) {
		if s := s.(map[string]any); s["done"] == true {
			done = append(done, s["id"].(string))
		}
	}
	return done
}

// TestOnboarding: each step is done when the user's own journal shows it
// (the demo journal does not count); the dismissal and the coach marks are
// stored, per user; bad marks are 400s.
func TestOnboarding(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a := srv.Client(t)
	a.Register("onboard-a@example.com", "password1")
	b := srv.Client(t)
	b.Register("onboard-b@example.com", "password1")
	steps := func(c *apitest.Client) []string {
		return doneSteps(t, apitest.Must(t, c.Do("GET", onboardingPath, nil), 200))
	}

	first := apitest.Must(t, a.Do("GET", onboardingPath, nil), 200)
	if len(first.JSON["steps"].([]any)) != 5 || first.JSON["done"] != float64(0) || first.JSON["dismissed"] != false ||
		len(first.JSON["coachMarksSeen"].([]any)) != 0 {
		t.Fatalf("a new user's onboarding: %s", first.Body)
	}
	t.Run("DemoJournalDoesNotCount", func(t *testing.T) {
		apitest.Must(t, b.Do("POST", "/api/demo-journal", nil), 201)
		if got := steps(b); len(got) != 0 {
			t.Fatalf("the demo journal did steps: %v", got)
		}
	})

	account := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD",
		"startingBalance": "1000"}), 201), "account")["id"].(string)
	if got := steps(a); !slices.Equal(got, []string{"account"}) {
		t.Fatalf("after an account: %v", got)
	}
	p := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": "AAPL",
		"assetType": "stock", "side": "long", "fills": []any{
			map[string]any{"type": "entry", "price": "10", "quantity": "5", "filledAt": "2025-01-02T15:00:00Z"}}}), 201), "position")["id"].(string)
	if got := steps(a); !slices.Equal(got, []string{"account", "trade"}) {
		t.Fatalf("after a trade: %v", got)
	}
	tag := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": "breakout"}), 201), "tag")["id"].(string)
	apitest.Must(t, a.Do("PUT", "/api/positions/"+p+"/tags", map[string]any{"tagIds": []string{tag}}), 200)
	if got := steps(a); slices.Contains(got, "review") {
		t.Fatalf("a tag without a review counted: %v", got)
	}
	apitest.Must(t, a.Do("PATCH", "/api/positions/"+p, map[string]any{"notes": "entered late"}), 200)
	apitest.Must(t, a.Do("PUT", "/api/journal/days/2025-01-02", map[string]any{"plan": "Wait for the open", "review": "", "notes": "", "tagIds": []string{}}), 200)
	apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "maxTradesPerDay", "params": map[string]any{"count": 3}}), 201)
	if got := apitest.Must(t, a.Do("GET", onboardingPath, nil), 200); len(doneSteps(t, got)) != 5 || got.JSON["done"] != float64(5) {
		t.Fatalf("after every step: %s", got.Body)
	}

	t.Run("Dismissed", func(t *testing.T) {
		r := apitest.Must(t, a.Do("POST", onboardingPath+"/dismiss", nil), 200)
		if r.JSON["dismissed"] != true {
			t.Fatalf("dismiss answer: %s", r.Body)
		}
		other := srv.Client(t) // a's second device
		apitest.Must(t, other.Do("POST", "/api/auth/login", map[string]string{"email": "onboard-a@example.com", "password": "password1"}), 200)
		if r := apitest.Must(t, other.Do("GET", onboardingPath, nil), 200); r.JSON["dismissed"] != true {
			t.Fatalf("dismissal not on the second device: %s", r.Body)
		}
		if r := apitest.Must(t, b.Do("GET", onboardingPath, nil), 200); r.JSON["dismissed"] != false {
			t.Fatalf("a's dismissal reached b: %s", r.Body)
		}
	})
	t.Run("CoachMarks", func(t *testing.T) {
		apitest.Must(t, a.Do("PUT", "/api/users/me/coach-marks/positions", nil), 204)
		apitest.Must(t, a.Do("PUT", "/api/users/me/coach-marks/positions", nil), 204)
		apitest.Must(t, a.Do("PUT", "/api/users/me/coach-marks/dashboard", nil), 204)
		r := apitest.Must(t, a.Do("GET", onboardingPath, nil), 200)
		if seen := r.JSON["coachMarksSeen"].([]any); len(seen) != 2 || seen[0] != "dashboard" || seen[1] != "positions" {
			t.Fatalf("marks seen: %s", r.Body)
		}
		if r := apitest.Must(t, b.Do("GET", onboardingPath, nil), 200); len(r.JSON["coachMarksSeen"].([]any)) != 0 {
			t.Fatalf("a's marks reached b: %s", r.Body)
		}
		apitest.Run(t, a, []apitest.Case{
			{Name: "UnknownMark", Method: "PUT", Path: "/api/users/me/coach-marks/settings", Status: 400, Code: "VALIDATION_ERROR", Field: "mark"},
		})
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "SignedOutMark", Method: "PUT", Path: "/api/users/me/coach-marks/rules", Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "SignedOutGet", Method: "GET", Path: onboardingPath, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "SignedOutDismiss", Method: "POST", Path: onboardingPath + "/dismiss", Status: 401, Code: "UNAUTHENTICATED"},
		})
		var n int
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM coach_marks_seen`).Scan(&n); err != nil || n != 2 {
			t.Fatalf("coach mark rows %d (%v)", n, err)
		}
	})
}
