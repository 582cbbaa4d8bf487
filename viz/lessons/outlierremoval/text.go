package outlierremoval

import _ "embed"

// Text is the lesson's prose, an HTML fragment in the subset package prose
// reads: the web page shows it beside the figure, the desktop app in its
// place.
func Text() string { return text }

//go:embed lesson.html
var text string
