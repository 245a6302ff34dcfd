package backup_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tradejournal/shared/apitest"
	"tradejournal/shared/backup"
)

// TestBackupRestore: a backup of a journal with one of everything restores
// into a fresh user as the same journal (settings, fee schedules, accounts
// and balances, ledger, tags, positions with their figures, runs, fills,
// tags and notes, images in the bucket, rates), with new ids; a second
// restore is refused and changes nothing.
func TestBackupRestore(t *testing.T) {
	f := setup(t)
	a, aID := f.user(t, "a@example.com")
	marketsJournal(t, a, journal(t, a))
	// Bars uploaded for AAPL: 2-minute bars, one of them 4 decimals long.
	aapl := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/positions?symbol=AAPL", nil), 200))[0].(map[string]any)["id"].(string)
	put := a.NewRequest("PUT", "/api/positions/"+aapl+"/bars?timezone=UTC",
		"time,open,high,low,close,volume\n2025-01-02 14:30,10,10.5,9.9,10.2,1200\n2025-01-02 14:32,10.2,10.4,10.1,10.1234,0\n")
	put.Header.Set("Content-Type", "text/csv")
	apitest.Must(t, a.Send(put), 200)
	want := snapshot(t, f, aID)
	archive := download(t, a)

	t.Run("Manifest", func(t *testing.T) {
		zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
		if err != nil {
			t.Fatal(err)
		}
		last := zr.File[len(zr.File)-1]
		if last.Name != backup.ManifestName {
			t.Fatalf("last entry %s", last.Name)
		}
		rc, _ := last.Open()
		var m backup.Manifest
		if err := json.NewDecoder(rc).Decode(&m); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		if m.Format != backup.Format || m.FormatVersion != backup.FormatVersion || m.AppVersion == "" || !m.CreatedAt.Equal(testNow) {
			t.Fatalf("manifest %+v", m)
		}
		if len(m.Entries) != len(zr.File)-1 {
			t.Fatalf("%d entries listed, %d files", len(m.Entries), len(zr.File))
		}
		for i, e := range m.Entries {
			rc, _ := zr.File[i].Open()
			h := sha256.New()
			n, _ := io.Copy(h, rc)
			rc.Close()
			if zr.File[i].Name != e.Name || n != e.Size || hex.EncodeToString(h.Sum(nil)) != e.SHA256 {
				t.Fatalf("entry %d: %+v vs %s (%d bytes)", i, e, zr.File[i].Name, n)
			}
		}
		images := 0
		for _, zf := range zr.File {
			if strings.HasPrefix(zf.Name, backup.ImageDir) {
				images++
			}
		}
		if images != 2 {
			t.Fatalf("%d images in the archive", images)
		}
	})

	c, cID := f.user(t, "c@example.com")
	putsBefore := len(f.objects.puts)
	r := apitest.Must(t, restore(t, c, archive), 201)
	t.Run("SameJournal", func(t *testing.T) {
		got := snapshot(t, f, cID)
		if !slices.Equal(got, want) {
			t.Fatalf("restored journal differs:\n got %q\nwant %q", got, want)
		}
		n := apitest.Object(t, r, "restored")
		if n["positions"] != float64(10) || n["images"] != float64(2) || n["accounts"] != float64(2) || n["ledgerEntries"] != float64(3) ||
			n["journalDays"] != float64(2) || n["playbooks"] != float64(2) ||
			n["expenseCategories"] != float64(2) || n["expenses"] != float64(3) || n["expenseCharges"] != float64(8) ||
			n["taxMarks"] != float64(1) || n["savedViews"] != float64(1) || n["barUploads"] != float64(1) {
			t.Fatalf("counts %v", n)
		}
		if len(f.objects.puts) != putsBefore+2 {
			t.Fatalf("%d objects put by the restore", len(f.objects.puts)-putsBefore)
		}
	})
	t.Run("SameStatistics", func(t *testing.T) {
		// The same figures; the tags' ids are new.
		uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
		for _, path := range []string{"/api/performance?bySymbol=true", "/api/dashboard/totals"} {
			want := uuid.ReplaceAllString(string(apitest.Must(t, a.Do("GET", path, nil), 200).Body), "id")
			got := uuid.ReplaceAllString(string(apitest.Must(t, c.Do("GET", path, nil), 200).Body), "id")
			if got != want || !strings.Contains(want, `"netPnl":"1124.8700"`) && path != "/api/dashboard/totals" {
				t.Fatalf("%s differs:\n got %s\nwant %s", path, got, want)
			}
		}
	})
	t.Run("SavedViewNamesRestoredRecords", func(t *testing.T) {
		views := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/users/me/saved-views", nil), 200))
		q, _ := url.ParseQuery(views[0].(map[string]any)["query"].(string))
		var owned bool
		const own = `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $2 AND user_id = $1) AND EXISTS (SELECT 1 FROM playbooks WHERE id = $3 AND user_id = $1)
			AND (SELECT count(*) FROM tags WHERE id = ANY(string_to_array($4, ',')::uuid[]) AND user_id = $1) = 2`
		if err := f.srv.App.DB.QueryRow(t.Context(), own, cID, q.Get("accountId"), q.Get("playbookId"), q.Get("tagId")).Scan(&owned); err != nil || !owned {
			t.Fatalf("the restored view's filter %v does not name the restored records (%v)", q, err)
		}
		apitest.Must(t, c.Do("GET", "/api/performance?"+q.Encode(), nil), 200)
	})
	t.Run("NewIDs", func(t *testing.T) {
		var shared int
		const q = `SELECT count(*) FROM positions p JOIN positions q ON p.id = q.id WHERE p.user_id = $1 AND q.user_id = $2`
		if err := f.srv.App.DB.QueryRow(t.Context(), q, aID, cID).Scan(&shared); err != nil || shared != 0 {
			t.Fatalf("%d shared ids (%v)", shared, err)
		}
	})
	t.Run("ImagesServed", func(t *testing.T) {
		list := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/positions?symbol=AAPL", nil), 200))
		for _, p := range list {
			p := p.(map[string]any)
			if p["assetType"] != "stock" {
				continue
			}
			imgs := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/positions/"+p["id"].(string)+"/images", nil), 200))
			var got [][]byte
			for _, img := range imgs {
				got = append(got, apitest.Must(t, c.Do("GET", img.(map[string]any)["url"].(string), nil), 200).Body)
			}
			if len(got) != 2 || !(bytes.Equal(got[0], pngBytes) && bytes.Equal(got[1], jpegBytes) ||
				bytes.Equal(got[1], pngBytes) && bytes.Equal(got[0], jpegBytes)) {
				t.Fatalf("images %q", got)
			}
		}
	})
	t.Run("SecondRestoreRefused", func(t *testing.T) {
		r := restore(t, c, archive)
		if r.Status != 409 || r.ErrorCode() != "JOURNAL_NOT_EMPTY" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if got := snapshot(t, f, cID); !slices.Equal(got, want) {
			t.Fatal("the refused restore changed the journal")
		}
	})
	t.Run("BackupOfTheRestoreRestoresAgain", func(t *testing.T) {
		d, dID := f.user(t, "d@example.com")
		apitest.Must(t, restore(t, d, download(t, c)), 201)
		if got := snapshot(t, f, dID); !slices.Equal(got, want) {
			t.Fatalf("second generation differs:\n got %q\nwant %q", got, want)
		}
	})
}

// TestRestoreRefusals: archives that are not a whole, unchanged and
// consistent backup of this version are refused with a 4xx, and nothing
// of them is written (no row, no object left in the bucket).
func TestRestoreRefusals(t *testing.T) {
	f := setup(t)
	a, _ := f.user(t, "a@example.com")
	journal(t, a)
	archive := download(t, a)
	// Restores are limited per user (10 an hour): a new target every ten
	// attempts.
	var (
		target   *apitest.Client
		targetID string
		empty    map[string]int
		attempts int
	)
	next := func(t *testing.T) {
		if attempts%10 == 0 {
			// Each target signs up from its own address (X-Real-IP, believed
			// from loopback), under the registration limit.
			target = f.srv.Client(t)
			req := target.NewRequest("POST", "/api/auth/register",
				`{"email":"t`+strconv.Itoa(attempts)+`@example.com","password":"password1"}`)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Real-IP", "192.0.2."+strconv.Itoa(1+attempts/10))
			targetID = apitest.Object(t, apitest.Must(t, target.Send(req), 201), "user")["id"].(string)
			empty = owned(t, f, targetID)
		}
		attempts++
	}

	// build writes an archive of entries with a correct manifest.
	build := func(entries map[string]string, version int) []byte {
		var buf bytes.Buffer
		w := backup.NewWriter(&buf, "test", testNow)
		names := make([]string, 0, len(entries))
		for n := range entries {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			ew, _ := w.Create(n, true)
			_, _ = ew.Write([]byte(entries[n]))
		}
		_ = w.Close()
		if version == backup.FormatVersion {
			return buf.Bytes()
		}
		return rezip(t, buf.Bytes(), func(name string, data []byte) []byte {
			if name == backup.ManifestName {
				return bytes.Replace(data, []byte(`"formatVersion": 1`), []byte(`"formatVersion": 2`), 1)
			}
			return data
		})
	}
	account := `{"id":"acc1","name":"Main","currency":"USD","timezone":"UTC","startingBalance":"100","defaultRiskPercent":null,"brokerageId":null,"archived":false,"demo":false,"createdAt":"2025-01-01T00:00:00Z"}` + "\n"
	position := func(id, account, extra string) string {
		return `{"id":"` + id + `","accountId":"` + account + `","symbol":"AAPL","assetType":"stock","multiplier":"1","side":"long",` +
			`"stopLoss":null,"targetPrice":null,"notes":"","reversalOf":null,"tagIds":[],"createdAt":"2025-01-01T00:00:00Z",` +
			`"fills":[{"id":"f1","type":"entry","price":"10","quantity":"1","fees":"0","feeEstimated":false,"filledAt":"2025-01-02T00:00:00Z","splitOf":null}` +
			extra + `]}` + "\n"
	}
	bomb := func() []byte {
		// A deflated megabyte whose headers and manifest say 1,000 bytes:
		// the reader stops after 1,001.
		var raw bytes.Buffer
		fw, _ := flate.NewWriter(&raw, flate.BestCompression)
		_, _ = fw.Write(make([]byte, 1<<20))
		_ = fw.Close()
		sum := sha256.Sum256(make([]byte, 1000))
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: backup.EntryAccounts, Method: zip.Deflate, CompressedSize64: uint64(raw.Len()),
			UncompressedSize64: 1000, CRC32: 0})
		_, _ = w.Write(raw.Bytes())
		mw, _ := zw.Create(backup.ManifestName)
		_ = json.NewEncoder(mw).Encode(backup.Manifest{Format: backup.Format, FormatVersion: 1, AppVersion: "x",
			Entries: []backup.Entry{{Name: backup.EntryAccounts, Size: 1000, SHA256: hex.EncodeToString(sum[:])}}})
		_ = zw.Close()
		return buf.Bytes()
	}
	huge := func() []byte {
		// An entry whose headers and manifest say 3 GiB: refused unread.
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: backup.EntryAccounts, Method: zip.Store, CompressedSize64: 4, UncompressedSize64: 3 << 30})
		_, _ = w.Write([]byte("abcd"))
		mw, _ := zw.Create(backup.ManifestName)
		_ = json.NewEncoder(mw).Encode(backup.Manifest{Format: backup.Format, FormatVersion: 1,
			Entries: []backup.Entry{{Name: backup.EntryAccounts, Size: 3 << 30, SHA256: strings.Repeat("0", 64)}}})
		_ = zw.Close()
		return buf.Bytes()
	}
	journalDay := func(date, tags string) string {
		return `{"date":"` + date + `","plan":"p","review":"","notes":"","mood":null,"tagIds":[` + tags + `],` +
			`"createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-01T00:00:00Z"}` + "\n"
	}
	expense := func(category, account, start string) string {
		return `{"category":"` + category + `","accountId":` + account + `,"amount":"10","currency":"USD","note":"","startDate":"` + start +
			`","recurrence":"monthly","endDate":null,"createdAt":"2025-01-01T00:00:00Z"}` + "\n"
	}
	persona := func(id, name string) string {
		return `{"id":"` + id + `","name":"` + name + `","instructions":"Be blunt.","createdAt":"2025-01-01T00:00:00Z"}` + "\n"
	}
	conversation := func(id, persona, title, reason string) string {
		return `{"id":"` + id + `","title":"` + title + `","personaId":` + persona + `,"review":null,"createdAt":"2025-01-01T00:00:00Z",` +
			`"updatedAt":"2025-01-01T00:00:00Z","turns":[{"question":"Why?","answer":"Because.","endReason":"` + reason + `",` +
			`"startedAt":"2025-01-01T00:00:00Z","finishedAt":"2025-01-01T00:00:01Z"}]}` + "\n"
	}
	// An image is put in the bucket before the rates turn out bad: the
	// restore fails and the object is deleted again.
	imageThenBadDay := build(map[string]string{
		backup.EntryAccounts:    account,
		backup.EntryPositions:   position("p1", "acc1", ""),
		backup.EntryImages:      `{"id":"i1","positionId":"p1","contentType":"image/png","caption":"","createdAt":"2025-01-01T00:00:00Z"}` + "\n",
		backup.ImageDir + "i1":  string(pngBytes),
		backup.EntryJournalDays: journalDay("0000-01-02", ""),
	}, 1)

	for _, tc := range []struct {
		name   string
		body   []byte
		status int
		code   string
	}{
		{"Tampered", rezip(t, archive, func(name string, data []byte) []byte {
			if name == backup.EntryPositions {
				return bytes.Replace(data, []byte(`"185.5"`), []byte(`"1.5"`), 1)
			}
			return data
		}), 400, "INVALID_BACKUP"},
		// The control: a faithful copy restores (into a user of its own).
		{"FaithfulCopy", rezip(t, archive, func(_ string, data []byte) []byte { return data }), 201, ""},
		{"EntryAdded", withEntry(t, archive, "notes.txt", []byte("hello")), 400, "INVALID_BACKUP"},
		{"EntryDropped", rezip(t, archive, func(name string, data []byte) []byte {
			if strings.HasPrefix(name, backup.ImageDir) {
				return nil
			}
			return data
		}), 400, "INVALID_BACKUP"},
		{"Foreign", pngBytes, 400, "INVALID_BACKUP"},
		{"ForeignZip", rezip(t, archive, func(name string, data []byte) []byte {
			if name == backup.ManifestName {
				return nil
			}
			return data
		}), 400, "INVALID_BACKUP"},
		{"Truncated", archive[:len(archive)/2], 400, "INVALID_BACKUP"},
		{"Empty", nil, 400, "INVALID_BACKUP"},
		{"NewerVersion", build(map[string]string{backup.EntryAccounts: account}, 2), 400, "BACKUP_TOO_NEW"},
		{"ZipBomb", bomb(), 400, "INVALID_BACKUP"},
		{"HugeEntry", huge(), 400, "INVALID_BACKUP"},
		{"PositionOfUnknownAccount", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryPositions: position("p1", "nope", "")}, 1), 400, "INVALID_BACKUP"},
		{"ExitBeforeEntry", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryPositions: position("p1", "acc1", `,{"id":"f2","type":"exit","price":"10","quantity":"5","fees":"0","feeEstimated":false,"filledAt":"2025-01-03T00:00:00Z","splitOf":null}`)}, 1),
			400, "INVALID_BACKUP"},
		{"ReversalOfUnknownPosition", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryPositions: strings.Replace(position("p1", "acc1", ""), `"reversalOf":null`, `"reversalOf":"p0"`, 1)}, 1), 400, "INVALID_BACKUP"},
		{"ImageOfUnknownPosition", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryImages:     `{"id":"i1","positionId":"p9","contentType":"image/png","caption":"","createdAt":"2025-01-01T00:00:00Z"}` + "\n",
			backup.ImageDir + "i1": string(pngBytes)}, 1), 400, "INVALID_BACKUP"},
		{"ImageNotWhatItClaims", build(map[string]string{backup.EntryAccounts: account, backup.EntryPositions: position("p1", "acc1", ""),
			backup.EntryImages:     `{"id":"i1","positionId":"p1","contentType":"image/png","caption":"","createdAt":"2025-01-01T00:00:00Z"}` + "\n",
			backup.ImageDir + "i1": "<html><script>alert(1)</script></html>"}, 1), 400, "INVALID_BACKUP"},
		{"UnknownField", build(map[string]string{backup.EntryAccounts: strings.Replace(account, `"demo":false`, `"demo":false,"extra":1`, 1)}, 1),
			400, "INVALID_BACKUP"},
		{"ImageThenBadJournalDay", imageThenBadDay, 400, "INVALID_BACKUP"},
		{"BadRate", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryExchangeRates: `{"baseCurrency":"EUR","quoteCurrency":"USD","effectiveDate":"2025-01-01","rate":"-1"}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"BarsHighBelowLow", build(map[string]string{backup.EntryAccounts: account, backup.EntryBarUploads: `{"symbol":"ES","stepSeconds":60,"uploadedAt":"2025-01-01T00:00:00Z",` +
			`"bars":[{"time":"2025-01-02T14:30:00Z","open":"10","high":"9","low":"11","close":"10","volume":"0"}]}` + "\n"}, 1), 400, "INVALID_BACKUP"},
		{"BarsOfAnOddLength", build(map[string]string{backup.EntryAccounts: account, backup.EntryBarUploads: `{"symbol":"ES","stepSeconds":660,"uploadedAt":"2025-01-01T00:00:00Z",` +
			`"bars":[{"time":"2025-01-02T14:30:00Z","open":"10","high":"11","low":"9","close":"10","volume":"0"}]}` + "\n"}, 1), 400, "INVALID_BACKUP"},
		{"JournalDayOfUnknownTag", build(map[string]string{backup.EntryAccounts: account, backup.EntryJournalDays: journalDay("2025-01-02", `"t9"`)}, 1),
			400, "INVALID_BACKUP"},
		{"JournalDayTwice", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryJournalDays: journalDay("2025-01-02", "") + journalDay("2025-01-02", "")}, 1), 400, "INVALID_BACKUP"},
		{"JournalDayOutOfRange", build(map[string]string{backup.EntryAccounts: account, backup.EntryJournalDays: journalDay("0000-01-02", "")}, 1),
			400, "INVALID_BACKUP"},
		{"JournalDayMoodOutOfRange", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryJournalDays: strings.Replace(journalDay("2025-01-02", ""), `"mood":null`, `"mood":9`, 1)}, 1), 400, "INVALID_BACKUP"},
		{"CriterionOfAnotherPlaybook", build(map[string]string{backup.EntryAccounts: account, backup.EntryPositions: position("p1", "acc1", ""),
			backup.EntryPlaybooks: `{"id":"b1","name":"One","description":"","archived":false,"criteria":[{"id":"c1","text":"x"}],"createdAt":"2025-01-01T00:00:00Z"}` + "\n" +
				`{"id":"b2","name":"Two","description":"","archived":false,"criteria":[{"id":"c2","text":"y"}],"createdAt":"2025-01-01T00:00:00Z"}` + "\n",
			backup.EntryPositionPlaybooks: `{"positionId":"p1","playbookId":"b1","criterionIds":["c2"]}` + "\n"}, 1), 400, "INVALID_BACKUP"},
		{"PlaybookNameTwice", build(map[string]string{
			backup.EntryPlaybooks: `{"id":"b1","name":"One","description":"","archived":false,"criteria":[],"createdAt":"2025-01-01T00:00:00Z"}` + "\n" +
				`{"id":"b2","name":"ONE","description":"","archived":false,"criteria":[],"createdAt":"2025-01-01T00:00:00Z"}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"LayoutWidgetTwice", build(map[string]string{backup.EntryDashboardLayout: `{"widgets":[{"id":"calendar","size":"full"},{"id":"calendar","size":"half"}]}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"LayoutUnknownSize", build(map[string]string{backup.EntryDashboardLayout: `{"widgets":[{"id":"calendar","size":"huge"}]}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"SavedViewBadFilter", build(map[string]string{backup.EntrySavedViews: `{"name":"x","query":"from=yesterday","createdAt":"2025-01-01T00:00:00Z"}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"SavedViewNameTwice", build(map[string]string{backup.EntrySavedViews: `{"name":"x","query":"","createdAt":"2025-01-01T00:00:00Z"}` + "\n" +
			`{"name":"X","query":"","createdAt":"2025-01-01T00:00:00Z"}` + "\n"}, 1), 400, "INVALID_BACKUP"},
		{"TaxJurisdictionUnknown", build(map[string]string{backup.EntrySettings: `{"timezone":"UTC","displayCurrency":null,"taxJurisdiction":"fr"}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"TaxMarkTwice", build(map[string]string{backup.EntryTaxMarks: `{"year":2024,"instrument":"ESZ4","price":"1"}` + "\n" +
			`{"year":2024,"instrument":"ESZ4","price":"2"}` + "\n"}, 1), 400, "INVALID_BACKUP"},
		{"ExpenseOfUnknownCategory", build(map[string]string{backup.EntryAccounts: account, backup.EntryExpenses: expense("cat9", "null", "2025-01-02")}, 1),
			400, "INVALID_BACKUP"},
		{"ExpenseOfUnknownAccount", build(map[string]string{backup.EntryAccounts: account, backup.EntryExpenses: expense("data", `"acc9"`, "2025-01-02")}, 1),
			400, "INVALID_BACKUP"},
		{"ExpenseDateOutOfRange", build(map[string]string{backup.EntryAccounts: account, backup.EntryExpenses: expense("data", `"acc1"`, "0001-01-02")}, 1),
			400, "INVALID_BACKUP"},
		{"PropFirmPlanBadField", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryPropFirm: `{"accountId":"acc1","plan":{"phase":"evaluation","startingBalance":"100"},"createdAt":"2025-01-01T00:00:00Z"}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"PropFirmPlanNotAnObject", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryPropFirm: `{"accountId":"acc1","plan":{"phase":7},"createdAt":"2025-01-01T00:00:00Z"}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"PropFirmPlanTwice", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryPropFirm: `{"accountId":"acc1","plan":{"phase":"funded","startingBalance":"100"},"createdAt":"2025-01-01T00:00:00Z"}` + "\n" +
				`{"accountId":"acc1","plan":{"phase":"funded","startingBalance":"100"},"createdAt":"2025-01-01T00:00:00Z"}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"PropFirmPlanOfUnknownAccount", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryPropFirm: `{"accountId":"acc9","plan":{"phase":"funded","startingBalance":"100"},"createdAt":"2025-01-01T00:00:00Z"}` + "\n"}, 1),
			400, "INVALID_BACKUP"},
		{"ExpenseCategoryNamedAsABuiltIn", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryExpenseCategories: `{"id":"c1","name":"Data","createdAt":"2025-01-01T00:00:00Z"}` + "\n"}, 1), 400, "INVALID_BACKUP"},
		{"AssistantPersonaNameTwice", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryAssistantPersonas: persona("ps1", "Coach") + persona("ps2", "COACH")}, 1), 400, "INVALID_BACKUP"},
		{"AssistantPersonaTooLong", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryAssistantPersonas: persona("ps1", strings.Repeat("n", 61))}, 1), 400, "INVALID_BACKUP"},
		{"AssistantConversationOfUnknownPersona", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryAssistantPersonas:      persona("ps1", "Coach"),
			backup.EntryAssistantConversations: conversation("c1", `"ps9"`, "Title", "complete")}, 1), 400, "INVALID_BACKUP"},
		{"AssistantTurnUnknownEndReason", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryAssistantPersonas:      persona("ps1", "Coach"),
			backup.EntryAssistantConversations: conversation("c1", `"ps1"`, "Fine", "complete") + conversation("c2", "null", "Title", "exploded")}, 1),
			400, "INVALID_BACKUP"},
		{"AssistantTitleTooLong", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryAssistantConversations: conversation("c1", "null", strings.Repeat("t", 201), "complete")}, 1), 400, "INVALID_BACKUP"},
		{"AssistantConversationTwice", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryAssistantConversations: conversation("c1", "null", "A", "complete") + conversation("c1", "null", "B", "complete")}, 1),
			400, "INVALID_BACKUP"},
		{"AssistantReviewOfUnknownKind", build(map[string]string{backup.EntryAccounts: account,
			backup.EntryAssistantConversations: strings.Replace(conversation("c1", "null", "A", "complete"), `"review":null`, `"review":{"kind":"year","date":"2025-01-01"}`, 1)}, 1),
			400, "INVALID_BACKUP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next(t)
			c := target
			if tc.status == 201 {
				c, _ = f.user(t, "control@example.com")
			}
			puts, deletes := len(f.objects.puts), len(f.objects.deletes)
			r := restore(t, c, tc.body)
			if r.Status != tc.status || r.ErrorCode() != tc.code {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Body, tc.status, tc.code)
			}
			apitest.CheckErrorShape(t, r)
			if got := owned(t, f, targetID); !maps.Equal(got, empty) {
				t.Fatalf("rows written: %v", got)
			}
			// Every object the attempt put is deleted again.
			if tc.status != 201 {
				added := f.objects.puts[puts:]
				for _, k := range added {
					if !slices.Contains(f.objects.deletes[deletes:], k) {
						t.Fatalf("object %s left in the bucket (deletes %v)", k, f.objects.deletes[deletes:])
					}
				}
				if tc.name == "ImageThenBadJournalDay" && len(added) != 1 {
					t.Fatalf("%d objects put; the case means to put one", len(added))
				}
			}
		})
	}
	t.Run("MediaType", func(t *testing.T) {
		next(t)
		req := target.NewRequest("POST", "/api/backup/restore", string(archive))
		req.Header.Set("Content-Type", "application/json")
		if r := target.Send(req); r.Status != 415 || r.ErrorCode() != "UNSUPPORTED_MEDIA_TYPE" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

// TestAccess: every route needs a session; another user's account is a
// 404; each user's backup holds only their own journal.
func TestAccess(t *testing.T) {
	f := setup(t)
	a, _ := f.user(t, "a@example.com")
	main := journal(t, a)
	b, _ := f.user(t, "b@example.com")
	apitest.Run(t, f.srv.Client(t), []apitest.Case{
		{Name: "CSVNoSession", Method: "GET", Path: "/api/backup/positions.csv", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "ArchiveNoSession", Method: "GET", Path: "/api/backup/archive", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "RestoreNoSession", Method: "POST", Path: "/api/backup/restore", Body: "x", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "DeleteNoSession", Method: "DELETE", Path: "/api/users/me", Body: map[string]any{}, Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "UnknownPath", Method: "GET", Path: "/api/backup/nope", Status: 404},
	})
	apitest.Run(t, b, []apitest.Case{
		{Name: "OtherUsersAccount", Method: "GET", Path: "/api/backup/positions.csv?accountId=" + main, Status: 404},
		{Name: "MalformedAccount", Method: "GET", Path: "/api/backup/positions.csv?accountId=x", Status: 400, Code: "VALIDATION_ERROR"},
	})
	if r := apitest.Must(t, b.Do("GET", "/api/backup/positions.csv", nil), 200); strings.Count(string(r.Body), "\n") != 1 {
		t.Fatalf("b's CSV holds rows: %s", r.Body)
	}
	zr, err := zip.NewReader(bytes.NewReader(download(t, b)), int64(len(download(t, b))))
	if err != nil {
		t.Fatal(err)
	}
	for _, zf := range zr.File {
		if strings.HasSuffix(zf.Name, ".jsonl") && zf.UncompressedSize64 != 0 {
			t.Fatalf("b's backup holds %s (%d bytes)", zf.Name, zf.UncompressedSize64)
		}
	}
}

// TestArchiveWithoutItsBucket: images in a bucket this instance no longer
// has configured stop the backup with a clean 503 (the failure comes
// before the zip's first bytes leave), not a file without its images.
func TestArchiveWithoutItsBucket(t *testing.T) {
	f := setup(t)
	c, _ := f.user(t, "a@example.com")
	account := id(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201), "account")
	pos := id(t, apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": "AAPL",
		"assetType": "stock", "side": "long"}), 201), "position")
	apitest.Must(t, upload(t, c, "/api/positions/"+pos+"/images", pngBytes, ""), 201)
	f.srv.App.Objects = nil
	r := c.Do("GET", "/api/backup/archive", nil)
	if r.Status != 503 || r.ErrorCode() != "SERVICE_UNAVAILABLE" || r.Header.Get("Content-Disposition") != "" {
		t.Fatalf("%d %v %s", r.Status, r.Header, r.Body)
	}
}

// TestCSVRoundTrip: the positions CSV of an account, imported into an
// empty account of another user with the CSV import, gives the same
// positions, fills and figures.
func TestCSVRoundTrip(t *testing.T) {
	f := setup(t)
	a, aID := f.user(t, "a@example.com")
	main := journal(t, a)
	marketsJournal(t, a, main)
	r := apitest.Must(t, a.Do("GET", "/api/backup/positions.csv?accountId="+main, nil), 200)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("content type %s", r.Header.Get("Content-Type"))
	}
	csv := r.Body
	if !strings.HasPrefix(string(csv), "Account,Filled At,Symbol,Asset Type,Side,Quantity,Price,Fees,Fee Asset,Rate,Multiplier\n") {
		t.Fatalf("header: %s", csv)
	}

	c, cID := f.user(t, "c@example.com")
	account := id(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD",
		"startingBalance": "10000", "timezone": "America/Chicago"}), 201), "account")
	// The rates are the backup's, not the file's: the DAX CFD converts at
	// the EUR/USD rate the new journal has too.
	apitest.Must(t, c.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD",
		"effectiveDate": "2025-01-01", "rate": "1.0832"}), 201)
	p := previewCSV(t, c, account, csv)
	if p.JSON["presetId"] != "tradejournal-export" {
		t.Fatalf("preset %v (detected %v)", p.JSON["presetId"], p.JSON["detectedPresetId"])
	}
	apitest.Must(t, c.Do("POST", "/api/csv-import/commit", map[string]any{"token": p.JSON["token"], "confirmDuplicates": false}), 201)

	// What the CSV carries: every figure that does not need a stop, and
	// the fills (fee_estimated aside: the file gives every fee).
	figures := func(userID string) []string {
		var out []string
		for _, line := range snapshot(t, f, userID) {
			fields := strings.Split(line, " | ")
			switch fields[0] {
			case "position":
				if fields[9] == "draft" || !strings.HasPrefix(fields[1], "Main|") {
					continue
				}
				// Drop stop, target, notes, initial risk, R, tags and the
				// excursions; keep the quote figures.
				keep := append(append(append(slices.Clone(fields[:10]), fields[13:22]...), fields[24]), fields[len(fields)-4:]...)
				out = append(out, strings.Join(keep, " | "))
			case "fill":
				if strings.HasPrefix(fields[1], "Main|") {
					out = append(out, strings.Join(append(slices.Clone(fields[:6]), fields[7:]...), " | "))
				}
			}
		}
		slices.Sort(out)
		return out
	}
	want, got := figures(aID), figures(cID)
	if len(want) < 12 || !slices.Equal(got, want) {
		t.Fatalf("imported journal differs:\n got %q\nwant %q", got, want)
	}
}

func previewCSV(t *testing.T, c *apitest.Client, account string, csv []byte) apitest.Response {
	t.Helper()
	opts, _ := json.Marshal(map[string]any{"accountId": account})
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, part := range []struct {
		name, filename, contentType string
		data                        []byte
	}{{"options", "", "application/json", opts}, {"file", "positions.csv", "text/csv", csv}} {
		h := textproto.MIMEHeader{}
		disposition := `form-data; name="` + part.name + `"`
		if part.filename != "" {
			disposition += `; filename="` + part.filename + `"`
		}
		h.Set("Content-Disposition", disposition)
		h.Set("Content-Type", part.contentType)
		pw, _ := mw.CreatePart(h)
		_, _ = pw.Write(part.data)
	}
	_ = mw.Close()
	req := c.NewRequest("POST", "/api/csv-import/preview", buf.String())
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return apitest.Must(t, c.Send(req), 200)
}

// withEntry copies an archive and adds an entry the manifest does not list.
func withEntry(t *testing.T, archive []byte, name string, data []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, zf := range zr.File {
		if err := zw.Copy(zf); err != nil {
			t.Fatal(err)
		}
	}
	w, _ := zw.Create(name)
	_, _ = w.Write(data)
	_ = zw.Close()
	return buf.Bytes()
}

// TestBackupKeepsReconciledBalance: a deleted deposit (kept with its
// reversal) and a reconcile's adjustment go into format version 1 as what
// they amount to, so the restored balance is the same.
func TestBackupKeepsReconciledBalance(t *testing.T) {
	f := setup(t)
	a, _ := f.user(t, "a@example.com")
	acc := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD", "startingBalance": "1000"}), 201), "account")
	base := "/api/accounts/" + acc["id"].(string) + "/ledger"
	dep := apitest.Object(t, apitest.Must(t, a.Do("POST", base, map[string]any{"kind": "deposit", "amount": "100"}), 201), "entry")
	apitest.Must(t, a.Do("DELETE", base+"/"+dep["id"].(string), nil), 200)
	apitest.Must(t, a.Do("POST", base+"/reconcile", map[string]any{"balance": "987.65"}), 201)

	c, _ := f.user(t, "c@example.com")
	r := apitest.Must(t, restore(t, c, download(t, a)), 201)
	if n := apitest.Object(t, r, "restored"); n["ledgerEntries"] != float64(1) {
		t.Fatalf("counts %v", n)
	}
	items := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/accounts", nil), 200))
	if len(items) != 1 || items[0].(map[string]any)["balance"] != "987.6500" {
		t.Fatalf("restored accounts %v", items)
	}
}
