package extract

import (
	"context"
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

var markdownParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList)).Parser()

// extractMarkdown reads Markdown with optional YAML front matter through goldmark's AST.
func extractMarkdown(ctx context.Context, name string, data []byte, _ Limits) (*Document, error) {
	src, err := decodeText(ctx, name, data)
	if err != nil {
		return nil, err
	}
	meta, body := splitFrontMatter(src)
	source := []byte(body)
	root := markdownParser.Parse(text.NewReader(source))

	w := &markdownWalker{source: source, b: newSectionBuilder(meta.Title)}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w.block(n, 0)
	}
	return &Document{Title: w.b.title, Author: meta.Author, Modified: meta.Modified, Validity: meta.Validity, Sections: w.b.sections}, nil
}

type markdownWalker struct {
	source []byte
	b      *sectionBuilder
}

// block emits one block-level node; listLevel is the nesting depth for lists found inside it.
func (w *markdownWalker) block(n ast.Node, listLevel int) {
	switch n := n.(type) {
	case *ast.Heading:
		w.b.heading(n.Level, w.inline(n))
	case *ast.Paragraph, *ast.TextBlock:
		w.b.paragraph(w.inline(n))
	case *ast.List:
		w.list(n, listLevel)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		w.b.add(Block{Kind: Code, Text: w.lines(n)})
	case *ast.HTMLBlock:
		w.b.paragraph(htmlFragmentText(w.lines(n)))
	case *extast.Table:
		w.b.add(Block{Kind: TableBlock, Table: w.table(n)})
	case *ast.ThematicBreak, *ast.LinkReferenceDefinition:
	default: // Blockquote, Document and anything a future extension adds: walk its children.
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			w.block(c, listLevel)
		}
	}
}

// list emits one ListItem per item (numbered "N. " for ordered lists) and recurses into nested
// lists one level deeper. Code blocks or tables inside an item follow it as their own blocks.
func (w *markdownWalker) list(list *ast.List, level int) {
	number := list.Start
	for item := list.FirstChild(); item != nil; item = item.NextSibling() {
		var parts []string
		var nested []ast.Node
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			switch c.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				parts = append(parts, w.inline(c))
			default:
				nested = append(nested, c)
			}
		}
		itemText := strings.Join(parts, "\n")
		if list.IsOrdered() {
			itemText = fmt.Sprintf("%d. %s", number, itemText)
			number++
		}
		w.b.listItem(level, itemText)
		for _, c := range nested {
			w.block(c, level+1)
		}
	}
}

func (w *markdownWalker) table(t *extast.Table) *Table {
	table := &Table{}
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, cleanInline(w.inline(cell)))
		}
		if _, isHeader := row.(*extast.TableHeader); isHeader {
			table.Header = cells
		} else {
			table.Rows = append(table.Rows, cells)
		}
	}
	return table
}

// lines returns the raw lines of a code or HTML block.
func (w *markdownWalker) lines(n ast.Node) string {
	var sb strings.Builder
	segs := n.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		sb.Write(seg.Value(w.source))
	}
	return sb.String()
}

// inline renders a node's inline children as plain text: emphasis and links lose their markup,
// images keep their alt text, hard line breaks become newlines.
func (w *markdownWalker) inline(n ast.Node) string {
	var sb strings.Builder
	w.writeInline(&sb, n)
	return sb.String()
}

func (w *markdownWalker) writeInline(sb *strings.Builder, n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Value(w.source))
			switch {
			case c.HardLineBreak():
				sb.WriteByte('\n')
			case c.SoftLineBreak():
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(c.Value)
		case *ast.AutoLink:
			sb.Write(c.URL(w.source))
		case *ast.RawHTML:
			if isLineBreakTag(c, w.source) {
				sb.WriteByte('\n')
			}
		case *extast.TaskCheckBox:
			if c.IsChecked {
				sb.WriteString("[x] ")
			} else {
				sb.WriteString("[ ] ")
			}
		default:
			w.writeInline(sb, c)
		}
	}
}

func isLineBreakTag(n *ast.RawHTML, source []byte) bool {
	var raw strings.Builder
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		raw.Write(seg.Value(source))
	}
	tag := strings.ToLower(strings.ReplaceAll(raw.String(), " ", ""))
	return tag == "<br>" || tag == "<br/>"
}
