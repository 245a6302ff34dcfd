package buildinfo

import "testing"

func TestLabels(t *testing.T) {
	tests := []struct {
		name, in, version, commit string
	}{
		{"empty", "", "unknown", "unknown"},
		{"release with commit", "v0.14.0-abc123", "v0.14.0-abc123", "abc123"},
		{"prerelease uses final dash", "v0.14.0-rc.1-abc123", "v0.14.0-rc.1-abc123", "abc123"},
		{"no dash", "v0.14.0", "v0.14.0", "unknown"},
		{"trailing dash", "v0.14.0-", "v0.14.0-", "unknown"},
		{"only dash", "-", "-", "unknown"},
		{"leading dash", "-abc", "-abc", "abc"},
		{"unknown stays unknown", "unknown", "unknown", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, c := Labels(tt.in)
			if v != tt.version || c != tt.commit {
				t.Errorf("Labels(%q) = (%q, %q), want (%q, %q)", tt.in, v, c, tt.version, tt.commit)
			}
		})
	}
}
