package journal

// Tag is a tag as every journal route shows it.
type Tag struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Category string `json:"category"`
}

// TagCategories are the categories a tag may have.
var TagCategories = []string{"setup", "mistake", "emotion", "general"}
