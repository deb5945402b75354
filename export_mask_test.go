package chitta

// ListValues and ValueWords expose the value rule of masking (listValues,
// valueWords) to the package's external tests.
var (
	ListValues = listValues
	ValueWords = valueWords
)
