package extract

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// extractHTML keeps a page's main content: <main>, else <article>, else <body>, without scripts,
// styles, navigation, page headers and footers, asides and forms.
func extractHTML(ctx context.Context, name string, data []byte, _ Limits) (*Document, error) {
	src, err := decodeText(ctx, name, data)
	if err != nil {
		return nil, err
	}
	root, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("%w: parse html: %v", ErrCorrupt, err)
	}
	title := ""
	if t := findElement(root, atom.Title); t != nil {
		title = cleanInline(nodeText(t))
	}
	content := findElement(root, atom.Main)
	if content == nil {
		content = findElement(root, atom.Article)
	}
	w := &htmlWalker{ctx: ctx, b: newSectionBuilder(title)}
	if content == nil {
		content = findElement(root, atom.Body)
		w.dropPageChrome = true
	}
	if content == nil {
		content = root
	}
	w.walk(content)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w.flush()
	return &Document{Title: w.b.title, Sections: w.b.sections}, nil
}

// htmlFragmentText returns the visible text of an HTML fragment (a Markdown HTML block).
func htmlFragmentText(fragment string) string {
	nodes, err := html.ParseFragment(strings.NewReader(fragment), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return ""
	}
	var sb strings.Builder
	for _, n := range nodes {
		if n.Type == html.ElementNode && skippedElement(n, false) {
			continue
		}
		sb.WriteString(nodeText(n))
		sb.WriteByte(' ')
	}
	return cleanBlockText(sb.String())
}

type htmlWalker struct {
	ctx context.Context
	b   *sectionBuilder
	// dropPageChrome skips <header> and <footer>: true when the content root is <body>, where they
	// are the site's banner and footer rather than an article's own header.
	dropPageChrome bool
	inline         strings.Builder // text waiting to become a paragraph
	listLevel      int
}

func (w *htmlWalker) flush() {
	w.b.paragraph(w.inline.String())
	w.inline.Reset()
}

func (w *htmlWalker) walk(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if w.ctx.Err() != nil {
			return
		}
		w.node(c)
	}
}

func (w *htmlWalker) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.inline.WriteString(collapseSpaces(n.Data))
		return
	case html.ElementNode:
	default:
		w.walk(n)
		return
	}
	if skippedElement(n, w.dropPageChrome) {
		return
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.flush()
		w.b.heading(int(n.Data[1]-'0'), nodeText(n))
	case atom.Ul, atom.Ol, atom.Menu:
		w.flush()
		w.list(n)
	case atom.Pre:
		w.flush()
		w.b.add(Block{Kind: Code, Text: rawText(n)})
	case atom.Table:
		w.flush()
		w.b.add(Block{Kind: TableBlock, Table: htmlTable(n)})
	case atom.Br:
		w.inline.WriteByte('\n')
	case atom.Img:
		if alt := attr(n, "alt"); alt != "" {
			w.inline.WriteString(" " + alt + " ")
		}
	default:
		if isInlineElement(n.DataAtom) {
			w.walk(n)
			return
		}
		w.flush()
		w.walk(n)
		w.flush()
	}
}

// list emits each <li> as a ListItem (numbered for <ol>) and nested lists one level deeper.
func (w *htmlWalker) list(list *html.Node) {
	number := 1
	for li := list.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li || skippedElement(li, w.dropPageChrome) {
			continue
		}
		var own strings.Builder
		var nested []*html.Node
		for c := li.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Ul || c.DataAtom == atom.Ol || c.DataAtom == atom.Table || c.DataAtom == atom.Pre) {
				nested = append(nested, c)
				continue
			}
			own.WriteString(nodeText(c))
		}
		text := cleanBlockText(own.String())
		if list.DataAtom == atom.Ol && text != "" {
			text = fmt.Sprintf("%d. %s", number, text)
			number++
		}
		w.b.listItem(w.listLevel, text)
		w.listLevel++
		for _, c := range nested {
			w.node(c)
		}
		w.listLevel--
	}
}

// htmlTable reads rows from the table's own sections (not nested tables). The header is the
// <thead> row or a first row made only of <th>, else the first row.
func htmlTable(table *html.Node) *Table {
	var rows [][]string
	headerRows := 0
	var visit func(n *html.Node, inHead bool)
	visit = func(n *html.Node, inHead bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Thead:
				visit(c, true)
			case atom.Tbody, atom.Tfoot:
				visit(c, false)
			case atom.Tr:
				var cells []string
				allTH := true
				for cell := c.FirstChild; cell != nil; cell = cell.NextSibling {
					if cell.Type == html.ElementNode && (cell.DataAtom == atom.Td || cell.DataAtom == atom.Th) {
						cells = append(cells, cleanInline(nodeText(cell)))
						allTH = allTH && cell.DataAtom == atom.Th
					}
				}
				if len(cells) == 0 {
					continue
				}
				if len(rows) == headerRows && (inHead || allTH) {
					headerRows++
				}
				rows = append(rows, cells)
			}
		}
	}
	visit(table, false)
	if len(rows) == 0 {
		return nil
	}
	if headerRows == 0 {
		headerRows = 1
	}
	// Several header rows: keep the last one (the column names), the others are group captions.
	return &Table{Header: rows[headerRows-1], Rows: rows[headerRows:]}
}

// skippedElement reports elements that are never main content.
func skippedElement(n *html.Node, dropPageChrome bool) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Nav, atom.Aside,
		atom.Form, atom.Button, atom.Select, atom.Textarea, atom.Input, atom.Iframe, atom.Svg,
		atom.Object, atom.Embed, atom.Canvas, atom.Dialog:
		return true
	case atom.Header, atom.Footer:
		if dropPageChrome {
			return true
		}
	}
	if _, hidden := attrOK(n, "hidden"); hidden {
		return true
	}
	switch strings.ToLower(attr(n, "role")) {
	case "navigation", "banner", "contentinfo", "search":
		return true
	}
	return strings.EqualFold(attr(n, "aria-hidden"), "true")
}

func isInlineElement(a atom.Atom) bool {
	switch a {
	case atom.A, atom.Abbr, atom.B, atom.Bdi, atom.Bdo, atom.Cite, atom.Code, atom.Data, atom.Del,
		atom.Dfn, atom.Em, atom.Font, atom.I, atom.Ins, atom.Kbd, atom.Label, atom.Mark, atom.Q,
		atom.S, atom.Samp, atom.Small, atom.Span, atom.Strong, atom.Sub, atom.Sup, atom.Time,
		atom.U, atom.Var, atom.Wbr, atom.Tt, atom.Big, atom.Strike, atom.Nobr:
		return true
	}
	return false
}

// nodeText returns the visible text under n, with <br> as a newline and block elements separated.
func nodeText(n *html.Node) string {
	var sb strings.Builder
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			sb.WriteString(collapseSpaces(n.Data))
			return
		case n.Type == html.ElementNode && skippedElement(n, false):
			return
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
			sb.WriteByte('\n')
			return
		case n.Type == html.ElementNode && n.DataAtom == atom.Img:
			sb.WriteString(attr(n, "alt"))
			return
		}
		block := n.Type == html.ElementNode && !isInlineElement(n.DataAtom)
		if block {
			sb.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
		if block {
			sb.WriteByte('\n')
		}
	}
	visit(n)
	return sb.String()
}

// rawText returns the text under n exactly as written (for <pre>).
func rawText(n *html.Node) string {
	var sb strings.Builder
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			sb.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(n)
	return strings.TrimPrefix(sb.String(), "\n")
}

// collapseSpaces turns every run of HTML whitespace into one space, as a browser shows it.
func collapseSpaces(s string) string {
	var sb strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' {
			space = true
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteRune(r)
	}
	if space {
		sb.WriteByte(' ')
	}
	return sb.String()
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := findElement(c, a); found != nil {
			return found
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return strings.TrimSpace(a.Val), true
		}
	}
	return "", false
}
