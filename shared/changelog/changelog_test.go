package changelog

import (
	"strings"
	"testing"
)

func TestTheRepositorysChangelog(t *testing.T) {
	entries, err := Parse(File)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 5 || entries[0].Version != "0.5.0" || entries[len(entries)-1].Version != "0.1.0" {
		t.Fatalf("%+v", entries)
	}
}

func TestParse(t *testing.T) {
	good := "# Title\nIntro text.\n\n## 1.1.0 (2026-02-01)\n- Two\n- Three  \r\n\n## 1.0.0 (2026-01-01)\n- One\n"
	entries, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Version != "1.1.0" || entries[0].Date != "2026-02-01" ||
		strings.Join(entries[0].Changes, "|") != "Two|Three" || strings.Join(entries[1].Changes, "|") != "One" {
		t.Fatalf("%+v", entries)
	}
	for name, src := range map[string]string{
		"Empty":          "",
		"OnlyIntro":      "# What's new\n",
		"NoChange":       "## 1.0.0 (2026-01-01)\n",
		"MiddleNoChange": "## 1.1.0 (2026-02-01)\n## 1.0.0 (2026-01-01)\n- One\n",
		"BadHeading":     "## v1 (2026-01-01)\n- One\n",
		"BadDate":        "## 1.0.0 (2026-02-30)\n- One\n",
		"DateOrder":      "## 1.1.0 (2026-01-01)\n- Two\n## 1.0.0 (2026-02-01)\n- One\n",
		"Repeated":       "## 1.0.0 (2026-01-01)\n- One\n## 1.0.0 (2026-01-01)\n- Two\n",
		"Prose":          "## 1.0.0 (2026-01-01)\nSome prose\n",
		"BlankChange":    "## 1.0.0 (2026-01-01)\n-  \n",
		"LongChange":     "## 1.0.0 (2026-01-01)\n- " + strings.Repeat("x", 301) + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(src)); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestUnread(t *testing.T) {
	entries := []Entry{{Version: "3.0.0"}, {Version: "2.0.0"}, {Version: "1.0.0"}}
	for read, want := range map[string]int{"": 3, "3.0.0": 0, "2.0.0": 1, "1.0.0": 2, "0.9.0": 3} {
		if got := Unread(entries, read); got != want {
			t.Errorf("read %q: %d unread, want %d", read, got, want)
		}
	}
}

// FuzzParse: whatever the file, Parse answers an error or entries that
// keep its rules; it never panics.
func FuzzParse(f *testing.F) {
	f.Add(File)
	for _, s := range []string{"", "## 1.0.0 (2026-01-01)\n- One\n", "## 1.0.0 (2026-01-01)\n", "## 9.9.9 (0000-01-01)\n- x", "## 1.0.0 (2026-01-01)\r\n- \xff\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		entries, err := Parse(src)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for i, e := range entries {
			if len(e.Changes) == 0 || seen[e.Version] || !heading.MatchString("## "+e.Version+" ("+e.Date+")") {
				t.Fatalf("entry %+v", e)
			}
			if i > 0 && e.Date > entries[i-1].Date {
				t.Fatalf("dates out of order: %+v", entries)
			}
			seen[e.Version] = true
			for _, c := range e.Changes {
				if c == "" || len(c) > maxChange || strings.ContainsAny(c, "\n") {
					t.Fatalf("change %q", c)
				}
			}
		}
	})
}
