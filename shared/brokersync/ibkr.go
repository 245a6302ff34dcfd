package brokersync

import (
	"bytes"
	"cmp"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"tradejournal/shared/brokerfile"
	"tradejournal/shared/buildinfo"
)

// flex is Interactive Brokers' Flex Web Service (version 3): SendRequest
// with the token and the query id answers a reference code; GetStatement
// with the token and the reference code answers the statement, or error
// 1019 while IB is still generating it. The statement is the Activity Flex
// Query's XML; its Trades section is read by the CSV import's IBKR Flex
// preset (brokerfile), so a sync and an import of the same query's CSV make
// the same fills.
type flex struct {
	base   string // IBKR_FLEX_BASE_URL: SendRequest and GetStatement are under it
	client *http.Client
	wait   func(context.Context, time.Duration) error
}

// flexWaits are the pauses between GetStatement calls while IB answers 1019
// (statement generation in progress): about two minutes in all, then the
// sync fails with STATEMENT_NOT_READY and the next one asks afresh.
var flexWaits = []time.Duration{2 * time.Second, 3 * time.Second, 5 * time.Second, 10 * time.Second, 10 * time.Second,
	15 * time.Second, 15 * time.Second, 20 * time.Second, 20 * time.Second, 20 * time.Second}

// flexRateWait is when to try again after IB's 1018 (too many requests: IB
// allows one request a second and ten a minute per token).
const flexRateWait = 10 * time.Minute

// maxStatementBytes bounds a statement read into memory.
const maxStatementBytes = 64 << 20

// flexResponse is the FlexStatementResponse of SendRequest, and of
// GetStatement when it has no statement to give.
type flexResponse struct {
	XMLName       xml.Name `xml:"FlexStatementResponse"`
	Status        string   `xml:"Status"`
	ReferenceCode string   `xml:"ReferenceCode"`
	ErrorCode     string   `xml:"ErrorCode"`
	ErrorMessage  string   `xml:"ErrorMessage"`
}

const flexInProgress = "1019"

func (s *flex) check(ctx context.Context, c Credentials) error {
	_, err := s.send(ctx, c, time.Now())
	return err
}

func (s *flex) fetch(ctx context.Context, req request) ([]execution, error) {
	ref, err := s.send(ctx, req.Credentials, req.Now)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		body, err := s.get(ctx, "GetStatement", req.Credentials.Token, ref)
		if err != nil {
			return nil, err
		}
		resp, isResponse := readFlexResponse(body)
		if !isResponse {
			return readFlexStatement(body, req.Zone, req.Now)
		}
		if resp.ErrorCode != flexInProgress {
			return nil, flexFailure(resp, req.Now)
		}
		if attempt == len(flexWaits) {
			return nil, &Failure{Code: CodeStatementNotReady,
				Message: "Interactive Brokers was still generating the statement after two minutes; the next sync asks again"}
		}
		if err := s.wait(ctx, flexWaits[attempt]); err != nil {
			return nil, err
		}
	}
}

// send asks IB to generate the query's statement and answers its
// reference code.
func (s *flex) send(ctx context.Context, c Credentials, now time.Time) (string, error) {
	body, err := s.get(ctx, "SendRequest", c.Token, c.QueryID)
	if err != nil {
		return "", err
	}
	resp, ok := readFlexResponse(body)
	switch {
	case !ok:
		return "", unreadable("Interactive Brokers", "SendRequest did not answer a FlexStatementResponse")
	case resp.ErrorCode != "" || !strings.EqualFold(resp.Status, "Success"):
		return "", flexFailure(resp, now)
	case resp.ReferenceCode == "":
		return "", unreadable("Interactive Brokers", "SendRequest answered no reference code")
	}
	return resp.ReferenceCode, nil
}

// get calls one of the service's two endpoints (t, q and v=3, as IB's
// documentation gives them) and answers the body. IB asks clients to name
// themselves in User-Agent.
func (s *flex) get(ctx context.Context, endpoint, token, q string) ([]byte, error) {
	u := s.base + "/" + endpoint + "?" + url.Values{"t": {token}, "q": {q}, "v": {"3"}}.Encode()
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, unreadable("Interactive Brokers", "IBKR_FLEX_BASE_URL is not a URL")
	}
	r.Header.Set("User-Agent", "TradeJournal/"+cmp.Or(buildinfo.Version, "dev"))
	res, err := s.client.Do(r)
	if err != nil {
		return nil, unavailable("Interactive Brokers", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxStatementBytes+1))
	switch {
	case err != nil:
		return nil, unavailable("Interactive Brokers", err)
	case len(body) > maxStatementBytes:
		return nil, &Failure{Code: CodeStatementUnreadable, Message: "the statement is larger than 64 MB; shorten the Flex Query's period"}
	case res.StatusCode >= 500:
		return nil, unavailable("Interactive Brokers", fmt.Errorf("HTTP status %d", res.StatusCode))
	case res.StatusCode != http.StatusOK:
		return nil, unreadable("Interactive Brokers", fmt.Sprintf("HTTP status %d from %s", res.StatusCode, endpoint))
	}
	return body, nil
}

// readFlexResponse reads a FlexStatementResponse; ok is false when the body
// is something else (the statement).
func readFlexResponse(body []byte) (flexResponse, bool) {
	var resp flexResponse
	if err := xml.Unmarshal(body, &resp); err != nil {
		return resp, false
	}
	resp.ErrorCode = strings.TrimSpace(resp.ErrorCode)
	resp.ReferenceCode = strings.TrimSpace(resp.ReferenceCode)
	resp.ErrorMessage = strings.TrimSpace(resp.ErrorMessage)
	return resp, true
}

// flexFailure words IB's error codes (the Flex Web Service's error list).
func flexFailure(resp flexResponse, now time.Time) *Failure {
	words := resp.ErrorMessage
	if words == "" {
		words = "Interactive Brokers answered status " + resp.Status
	}
	if resp.ErrorCode != "" {
		words += " (IB error " + resp.ErrorCode + ")"
	}
	switch resp.ErrorCode {
	case "1012":
		return &Failure{Code: CodeTokenExpired, Message: words}
	case "1011", "1013", "1015", "1016":
		return &Failure{Code: CodeTokenInvalid, Message: words}
	case "1010", "1014":
		return &Failure{Code: CodeQueryInvalid, Message: words}
	case "1018":
		return rateLimited(now, flexRateWait, words)
	case "1017", "1020":
		return &Failure{Code: CodeAnswerUnreadable, Message: words}
	}
	return &Failure{Code: CodeBrokerUnavailable, Message: words}
}

// flexAttributes maps the Trade element's attributes that the CSV's
// column headers name otherwise; the rest match the preset's headers as
// they are (headers match ignoring case and punctuation).
var flexAttributes = map[string]string{"assetCategory": "AssetClass"}

// readFlexStatement reads the executions of a FlexQueryResponse's Trades
// sections: each Trade element's attributes become a row of the IBKR Flex
// preset's CSV, read by brokerfile.Parse like an uploaded file. Each
// execution's id is its ibExecID (its tradeID when the query leaves that
// out).
func readFlexStatement(body []byte, zone string, now time.Time) ([]execution, error) {
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")) {
		return nil, &Failure{Code: CodeStatementUnreadable,
			Message: "the statement is not XML: set the Flex Query's format to XML (Performance & Reports > Flex Queries > edit the query > Delivery Configuration > Format)"}
	}
	var (
		header []string
		col    = map[string]int{}
		rows   [][]string
		ids    []string
		isFlex bool
	)
	dec := xml.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &Failure{Code: CodeStatementUnreadable, Message: "the statement is not well-formed XML: " + err.Error()}
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if el.Name.Local == "FlexQueryResponse" {
			isFlex = true
		}
		if el.Name.Local != "Trade" {
			continue
		}
		var (
			row []string
			id  string
		)
		for _, a := range el.Attr {
			name := a.Name.Local
			if to, ok := flexAttributes[name]; ok {
				name = to
			}
			i, seen := col[name]
			if !seen {
				i = len(header)
				col[name] = i
				header = append(header, name)
			}
			for len(row) <= i {
				row = append(row, "")
			}
			row[i] = a.Value
			switch {
			case name == "ibExecID" && a.Value != "":
				id = a.Value
			case name == "tradeID" && id == "":
				id = a.Value
			}
		}
		rows = append(rows, row)
		ids = append(ids, id)
	}
	if !isFlex {
		return nil, unreadable("Interactive Brokers", "GetStatement answered neither a statement nor a FlexStatementResponse")
	}
	for i, id := range ids {
		if id == "" {
			return nil, &Failure{Code: CodeStatementUnreadable, Message: fmt.Sprintf(
				"trade %d of the statement has no execution id: add IB Execution ID (or Trade ID) to the query's Trades section", i+1)}
		}
	}
	return readRows(brokerfile.Options{PresetID: "ibkr-flex-trades"}, header, rows, ids, zone, now, "the statement")
}
