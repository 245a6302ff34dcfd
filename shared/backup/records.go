package backup

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/market"
	"tradejournal/shared/rules"
)

// The entries of format version 1. Ids inside an archive are the source
// journal's; a restore gives every record a new one and remaps the
// references. Decimals are strings, times RFC 3339 in UTC.
const (
	EntrySettings      = "settings.json"
	EntryBrokerages    = "brokerages.jsonl"
	EntryAccounts      = "accounts.jsonl"
	EntryLedger        = "ledger.jsonl"
	EntryTags          = "tags.jsonl"
	EntryPositions     = "positions.jsonl"
	EntryImages        = "images.jsonl"
	EntryExchangeRates = "exchange_rates.jsonl"
	EntryMappings      = "csv_import_mappings.jsonl"
	ImageDir           = "images/" // images/<image id>: the image's bytes
)

// Record caps of a restore, per entry (Lines' max). Fee schedules,
// accounts and tags have the caps the app keeps for one user
// (functions/accounts); the rest sit well above what a person records and
// below what a restore holds in memory comfortably.
const (
	MaxBrokerages    = 100
	MaxAccounts      = 200
	MaxLedgerEntries = 200_000
	MaxTags          = 500
	MaxPositions     = 200_000
	MaxImages        = 10_000
	MaxExchangeRates = 200_000
	MaxMappings      = 1_000
)

// Settings are the user's own settings (not the sign-in: the email and the
// password stay the restoring user's).
type Settings struct {
	Timezone        string  `json:"timezone"`
	DisplayCurrency *string `json:"displayCurrency"`
	// TaxJurisdiction is the tax report's (us, uk, other; null until
	// chosen). Archives before it have none.
	TaxJurisdiction *string `json:"taxJurisdiction,omitempty"`
}

// Brokerage is a fee schedule of the user's own (the built-in ones are
// every instance's and referenced by id).
type Brokerage struct {
	ID                            string          `json:"id"`
	Name                          string          `json:"name"`
	StockPerShareCommission       decimal.Decimal `json:"stockPerShareCommission"`
	StockMinPerFill               decimal.Decimal `json:"stockMinPerFill"`
	StockMaxPerFill               decimal.Decimal `json:"stockMaxPerFill"`
	OptionsPerContractCommission  decimal.Decimal `json:"optionsPerContractCommission"`
	OptionsPerContractExchangeFee decimal.Decimal `json:"optionsPerContractExchangeFee"`
	OptionsMinPerFill             decimal.Decimal `json:"optionsMinPerFill"`
	OptionsMaxPerFill             decimal.Decimal `json:"optionsMaxPerFill"`
	CreatedAt                     time.Time       `json:"createdAt"`
}

// Account is an account; its balance is not stored (a restore derives it
// from the starting balance and the ledger).
type Account struct {
	ID                 string           `json:"id"`
	Name               string           `json:"name"`
	Currency           string           `json:"currency"`
	Timezone           string           `json:"timezone"`
	StartingBalance    decimal.Decimal  `json:"startingBalance"`
	DefaultRiskPercent *decimal.Decimal `json:"defaultRiskPercent"`
	BrokerageID        *string          `json:"brokerageId"`
	Archived           bool             `json:"archived"`
	Demo               bool             `json:"demo"`
	CreatedAt          time.Time        `json:"createdAt"`
	// TaxJurisdiction is the account's own (null: the user's);
	// TaxBasisReporting how its broker reports basis ("" in archives
	// before it: reported).
	TaxJurisdiction   *string `json:"taxJurisdiction,omitempty"`
	TaxBasisReporting string  `json:"taxBasisReporting,omitempty"`
}

// LedgerEntry is a deposit or a withdrawal (the ledger rows of fills are
// derived from the fills again). Amount is positive.
type LedgerEntry struct {
	AccountID  string          `json:"accountId"`
	Kind       string          `json:"kind"`
	Amount     decimal.Decimal `json:"amount"`
	OccurredAt time.Time       `json:"occurredAt"`
	Note       string          `json:"note"`
}

// Tag is a tag.
type Tag struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Category  string    `json:"category"`
	Demo      bool      `json:"demo"`
	CreatedAt time.Time `json:"createdAt"`
}

// Position is a position with its fills and tags. ReversalOf names the
// position it continues (a run, journalstore); its figures are not kept:
// a restore derives them from the fills again.
type Position struct {
	ID          string           `json:"id"`
	AccountID   string           `json:"accountId"`
	Symbol      string           `json:"symbol"`
	AssetType   string           `json:"assetType"`
	Multiplier  decimal.Decimal  `json:"multiplier"`
	Side        string           `json:"side"`
	StopLoss    *decimal.Decimal `json:"stopLoss"`
	TargetPrice *decimal.Decimal `json:"targetPrice"`
	Notes       string           `json:"notes"`
	ReversalOf  *string          `json:"reversalOf"`
	TagIDs      []string         `json:"tagIds"`
	Fills       []Fill           `json:"fills"`
	CreatedAt   time.Time        `json:"createdAt"`
	// MaePrice and MfePrice are the review's excursions, absent when not
	// set (and in archives made before they existed).
	MaePrice *decimal.Decimal `json:"maePrice,omitempty"`
	MfePrice *decimal.Decimal `json:"mfePrice,omitempty"`
	// QuoteCurrency is a CFD's own currency, absent for the account's (a
	// pair's is in its symbol).
	QuoteCurrency string `json:"quoteCurrency,omitempty"`
}

// Fill is a fill; SplitOf names, on the opening part of a reversal's fill,
// its closing part.
type Fill struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Price        decimal.Decimal `json:"price"`
	Quantity     decimal.Decimal `json:"quantity"`
	Fees         decimal.Decimal `json:"fees"`
	FeeEstimated bool            `json:"feeEstimated"`
	FilledAt     time.Time       `json:"filledAt"`
	SplitOf      *string         `json:"splitOf"`
	// Rate is a forex, crypto or CFD fill's rate of its quote currency in
	// the account's, when the trader or the file gave it (RateGiven); a
	// rate the journal found is found again on restore.
	Rate *decimal.Decimal `json:"rate,omitempty"`
	// FeeAsset is the coin or currency a crypto fill's fees are in when not
	// the account's.
	FeeAsset string `json:"feeAsset,omitempty"`
}

// Image is an image's record; its bytes are the entry ImageDir + ID.
type Image struct {
	ID          string    `json:"id"`
	PositionID  string    `json:"positionId"`
	ContentType string    `json:"contentType"`
	Caption     string    `json:"caption"`
	CreatedAt   time.Time `json:"createdAt"`
}

// ExchangeRate is one of the user's rates: 1 base = rate quote from the
// effective date on.
type ExchangeRate struct {
	BaseCurrency  string          `json:"baseCurrency"`
	QuoteCurrency string          `json:"quoteCurrency"`
	EffectiveDate string          `json:"effectiveDate"`
	Rate          decimal.Decimal `json:"rate"`
}

// Mapping is a saved CSV import mapping.
type Mapping struct {
	Name    string          `json:"name"`
	Options json.RawMessage `json:"options"`
}

// EntryStrategies holds the user's strategies: positions grouped as one
// multi-leg trade (absent in archives made before them).
const EntryStrategies = "strategies.jsonl"

// MaxStrategies caps the strategies a restore reads.
const MaxStrategies = 200_000

// Strategy is a strategy: its account, name, planned risk and legs.
type Strategy struct {
	ID          string           `json:"id"`
	AccountID   string           `json:"accountId"`
	Name        string           `json:"name"`
	PlannedRisk *decimal.Decimal `json:"plannedRisk"`
	PositionIDs []string         `json:"positionIds"`
	CreatedAt   time.Time        `json:"createdAt"`
}

// The daily journal's entries (shared/dayjournal): one line a day.
const (
	EntryJournalDays = "journal_days.jsonl"
	MaxJournalDays   = 100_000 // one a day for 270 years
)

// JournalDay is a day's entry, its texts in the clear (a restore seals them
// with the restoring instance's key); TagIDs name tags of the archive.
type JournalDay struct {
	Date      string    `json:"date"`
	Plan      string    `json:"plan"`
	Review    string    `json:"review"`
	Notes     string    `json:"notes"`
	Mood      *int      `json:"mood"`
	TagIDs    []string  `json:"tagIds"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Demo      bool      `json:"demo"` // the demo journal's, as an account or tag can be
}

// Playbooks (issue 21): the user's playbooks with their checklists, and
// what each position follows. Archives written before them lack both
// entries, which then restore nothing.
const (
	EntryPlaybooks         = "playbooks.jsonl"
	EntryPositionPlaybooks = "position_playbooks.jsonl"
	MaxPlaybooks           = 100 // the app's cap for one user (journalstore.MaxPlaybooks)
)

// Playbook is a playbook with its criteria in checklist order; the
// description is opened (the archive is the user's own copy).
type Playbook struct {
	ID          string              `json:"id"`
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Archived    bool                `json:"archived"`
	Criteria    []PlaybookCriterion `json:"criteria"`
	CreatedAt   time.Time           `json:"createdAt"`
	Demo        bool                `json:"demo"` // the demo journal's, as an account or tag can be
}

// PlaybookCriterion is one item of a playbook's checklist.
type PlaybookCriterion struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// PositionPlaybook is the playbook a position follows and the criteria of
// it that the position met.
type PositionPlaybook struct {
	PositionID   string   `json:"positionId"`
	PlaybookID   string   `json:"playbookId"`
	CriterionIDs []string `json:"criterionIds"`
}

// EntryRules is the trading rules (shared/rules), in an entry of its own:
// an archive without it (made before rules existed) restores none.
const EntryRules = "trading_rules.jsonl"

// MaxRules caps a restore's rules: the app keeps at most 100 for a user
// (functions/rules).
const MaxRules = 100

// TradingRule is one trading rule; a restore checks Params again with
// shared/rules.ParseParams, and maps AccountID (null: every account) and
// TagID (absent or null: every position). An archive made before weights
// lacks Weight: the rule is important (rules.DefaultWeight), as the rules
// stored then are.
type TradingRule struct {
	Type      string          `json:"type"`
	Params    json.RawMessage `json:"params"`
	Enabled   bool            `json:"enabled"`
	AccountID *string         `json:"accountId"`
	Weight    rules.Weight    `json:"weight,omitempty"`
	TagID     *string         `json:"tagId,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
}

// EntryPropFirm is the accounts' prop-firm plans (shared/propfirm), in an
// entry of its own: an archive made before them restores none.
const EntryPropFirm = "prop_firm_plans.jsonl"

// PropFirmPlan is one account's plan; a restore checks Plan again with
// shared/propfirm.Validate and maps AccountID. At most one an account, so
// at most MaxAccounts.
type PropFirmPlan struct {
	AccountID string          `json:"accountId"`
	Plan      json.RawMessage `json:"plan"`
	CreatedAt time.Time       `json:"createdAt"`
}

// Expenses (shared/expenses): the user's own expense categories and the
// expense definitions. Their charges are not carried: a restore records
// them again up to today from the definitions. Archives made before them
// lack both entries, which then restore nothing.
const (
	EntryExpenseCategories = "expense_categories.jsonl"
	EntryExpenses          = "expenses.jsonl"
	MaxExpenseCategories   = 100  // the app's cap for one user (expenses.MaxCategories)
	MaxExpenses            = 5000 // the app's cap for one user (expenses.MaxExpenses)
)

// ExpenseCategory is a category of the user's own.
type ExpenseCategory struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// Expense is an expense definition. Category is a built-in key, or the id
// of an ExpenseCategory of the archive; AccountID names an account of the
// archive (null: none).
type Expense struct {
	Category   string          `json:"category"`
	AccountID  *string         `json:"accountId"`
	Amount     decimal.Decimal `json:"amount"`
	Currency   string          `json:"currency"`
	Note       string          `json:"note"`
	StartDate  string          `json:"startDate"`
	Recurrence string          `json:"recurrence"`
	EndDate    *string         `json:"endDate"`
	CreatedAt  time.Time       `json:"createdAt"`
}

// EntryTaxMarks holds the year-end marks of Section 1256 contracts the
// tax report uses (functions/tax).
const EntryTaxMarks = "tax_year_end_marks.jsonl"

// MaxTaxMarks caps the marks of a restore (500 a year for many years).
const MaxTaxMarks = 20_000

// TaxMark is one contract's year-end price.
type TaxMark struct {
	Year       int             `json:"year"`
	Instrument string          `json:"instrument"`
	Price      decimal.Decimal `json:"price"`
}

// The dashboard (shared/personal): its layout, an entry of one line that
// is absent while the user keeps the default, and the saved views.
// Archives made before them lack both, which then restore nothing.
const (
	EntryDashboardLayout = "dashboard_layout.json"
	EntrySavedViews      = "saved_views.jsonl"
	MaxSavedViews        = 50 // the app's cap for one user (personal.MaxViews)
)

// DashboardLayout is the dashboard's widgets in their order.
type DashboardLayout struct {
	Widgets []DashboardWidget `json:"widgets"`
}

// DashboardWidget is one widget and its width.
type DashboardWidget struct {
	ID   string `json:"id"`
	Size string `json:"size"`
}

// SavedView is a named filter of the dashboard: the statistics' query
// string, whose account, tag and playbook ids are the archive's.
type SavedView struct {
	Name      string    `json:"name"`
	Query     string    `json:"query"`
	CreatedAt time.Time `json:"createdAt"`
}

// The assistant (issue 34): the user's own personas, the conversations
// with their turns and the turns' tool calls, texts in the clear (a restore
// seals them with the restoring instance's key), and whether the assistant
// may read the journal (an entry of one line, absent while the user never
// chose: then it may not). Archives made before them lack the entries (or
// a turn's tool calls), which then restore nothing.
const (
	EntryAssistantPersonas      = "assistant_personas.jsonl"
	EntryAssistantConversations = "assistant_conversations.jsonl"
	EntryAssistantSettings      = "assistant_settings.json"
	MaxAssistantPersonas        = 20 // the app's cap for one user (assistantdata.MaxPersonas)
	MaxAssistantConversations   = 20_000
	MaxAssistantTurns           = 200_000 // of all conversations together
	MaxAssistantToolCalls       = 400_000 // of all turns together
)

// AssistantSettings is the user's consent to the assistant reading their
// journal.
type AssistantSettings struct {
	JournalAccess bool `json:"journalAccess"`
}

// AssistantPersona is a persona of the user's own.
type AssistantPersona struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Instructions string    `json:"instructions"`
	CreatedAt    time.Time `json:"createdAt"`
}

// AssistantConversation is a conversation with its turns, oldest first.
// PersonaID names an AssistantPersona of the archive (null: the built-in
// default); Review is what it was opened to review (null: nothing).
type AssistantConversation struct {
	ID        string           `json:"id"`
	Title     string           `json:"title"`
	PersonaID *string          `json:"personaId"`
	Review    *AssistantReview `json:"review"`
	CreatedAt time.Time        `json:"createdAt"`
	UpdatedAt time.Time        `json:"updatedAt"`
	Turns     []AssistantTurn  `json:"turns"`
}

// AssistantReview is a review on request: a week or a day (Date,
// YYYY-MM-DD) or a position of the archive (PositionID).
type AssistantReview struct {
	Kind       string  `json:"kind"`
	Date       *string `json:"date,omitempty"`
	PositionID *string `json:"positionId,omitempty"`
}

// AssistantTurn is a question and its answer (null when the turn stored
// none). EndReason is complete, budget, disconnect, provider_error,
// insufficient_credits, error or abandoned; the answer is complete exactly
// when it is "complete".
type AssistantTurn struct {
	Question   string     `json:"question"`
	Answer     *string    `json:"answer"`
	EndReason  string     `json:"endReason"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt"`
	// ToolCalls are the calls the turn's model made, in order.
	ToolCalls []AssistantToolCall `json:"toolCalls,omitempty"`
}

// AssistantToolCall is a tool call with its result. Round is the provider
// call of its turn that made it, from 0; Arguments is the JSON the model
// sent.
type AssistantToolCall struct {
	Round     int             `json:"round"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Result    string          `json:"result"`
	CreatedAt time.Time       `json:"createdAt"`
}

// The trader's uploaded price bars (issue 37), one line a symbol with its
// bars. Archives before them lack the entry. The excursions measured from
// them are not archived: the restoring instance's job measures again.
const (
	EntryBarUploads = "bar_uploads.jsonl"
	MaxBarUploads   = 200 // the symbols one user keeps bars of
)

// BarUpload is the bars of one symbol as uploaded: their length, when, and
// the bars oldest first.
type BarUpload struct {
	Symbol      string       `json:"symbol"`
	StepSeconds int64        `json:"stepSeconds"`
	UploadedAt  time.Time    `json:"uploadedAt"`
	Bars        []market.Bar `json:"bars"`
}
