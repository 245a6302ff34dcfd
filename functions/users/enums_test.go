package users_test

import (
	"slices"
	"testing"

	"gopkg.in/yaml.v3"

	"tradejournal/api"
	"tradejournal/shared/personal"
)

// TestDocumentedLists holds the OpenAPI enums the web app's types come
// from to shared/personal's lists: widgets, sizes, steps, coach marks.
func TestDocumentedLists(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Enum []string `yaml:"enum"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(api.Document, &doc); err != nil {
		t.Fatal(err)
	}
	var widgets, sizes, steps []string
	for _, w := range personal.DefaultLayout {
		widgets = append(widgets, w.ID)
	}
	for _, s := range personal.Sizes {
		sizes = append(sizes, string(s))
	}
	for _, s := range personal.Steps {
		steps = append(steps, string(s))
	}
	for schema, want := range map[string][]string{"DashboardWidgetId": widgets, "DashboardWidgetSize": sizes,
		"OnboardingStepId": steps, "CoachMark": personal.CoachMarks} {
		if got := doc.Components.Schemas[schema].Enum; !slices.Equal(got, want) {
			t.Errorf("%s documents %v, shared/personal has %v", schema, got, want)
		}
	}
}
