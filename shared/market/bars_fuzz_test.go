package market

import (
	"testing"
)

// FuzzParseBars holds the candle parser: it never panics, and what it
// accepts is whole (positive prices, high at or above low, times rising).
func FuzzParseBars(f *testing.F) {
	for _, s := range []string{
		`{"s":"no_data"}`,
		`{"s":"ok","t":[1748872800],"o":[1],"h":[2],"l":[0.5],"c":[1.5],"v":[10]}`,
		`{"s":"ok","t":[1748872800,1748872860],"o":[1,1],"h":[2,2],"l":[1,1],"c":[1,1],"v":[0,0]}`,
		`{"s":"ok","t":[1e3],"o":[1],"h":[1],"l":[1],"c":[1],"v":[1]}`,
		`{"s":"ok","t":[null],"o":[1],"h":[1],"l":[1],"c":[1],"v":[1]}`,
		`{"s":"ok"}`, `null`, `{"s":"ok","t":[1],"o":[1]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		bars, err := parseBars(body)
		if err != nil {
			return
		}
		for i, b := range bars {
			if !b.Low.IsPositive() || b.High.LessThan(b.Low) || i > 0 && !b.Time.After(bars[i-1].Time) {
				t.Fatalf("accepted bar %d %+v", i, b)
			}
		}
	})
}
