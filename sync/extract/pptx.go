package extract

import (
	"context"
	"encoding/xml"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func init() { register(extractPPTX, ".pptx", ".pptm") }

// extractPPTX returns one section per slide in presentation order (Locator "slide N", Path the
// slide's title), body text as list items by outline level, tables, and the speaker notes as a
// paragraph starting "Notes: ".
func extractPPTX(ctx context.Context, _ string, data []byte, limits Limits) (*Document, error) {
	z, err := openSafeZip(data, limits)
	if err != nil {
		return nil, err
	}
	slides, err := slideOrder(z)
	if err != nil {
		return nil, err
	}
	props, err := readOOXMLCore(z)
	if err != nil {
		return nil, err
	}
	validity, err := readOOXMLValidity(z)
	if err != nil {
		return nil, err
	}
	doc := &Document{Title: props.Title, Author: props.Author, Modified: parseDate(props.Modified), Validity: validity}
	for i, slidePart := range slides {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		raw, err := z.readMember(slidePart)
		if err != nil {
			return nil, err
		}
		slide, err := readSlide(slidePart, raw)
		if err != nil {
			return nil, err
		}
		section := Section{Locator: fmt.Sprintf("slide %d", i+1), Blocks: slide.blocks}
		if slide.title != "" {
			section.Path = []string{slide.title}
			if doc.Title == "" {
				doc.Title = slide.title
			}
		}
		notes, err := slideNotes(z, slidePart)
		if err != nil {
			return nil, err
		}
		if notes != "" {
			section.Blocks = append(section.Blocks, Block{Kind: Paragraph, Text: "Notes: " + notes})
		}
		doc.Sections = append(doc.Sections, section)
	}
	return doc, nil
}

var slideNumber = regexp.MustCompile(`slide(\d+)\.xml$`)

// slideOrder lists slide parts in the order of presentation.xml's slide list; without one, the
// ppt/slides members sorted by number (slide10 after slide9).
func slideOrder(z *safeZip) ([]string, error) {
	var ids []string
	if raw, err := z.readOptional("ppt/presentation.xml"); err != nil {
		return nil, err
	} else if raw != nil {
		err := xmlTokens("ppt/presentation.xml", raw, func(_ *xml.Decoder, tok xml.Token) error {
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "sldId" {
				ids = append(ids, xmlAttr(se, "id")) // the r:id attribute; the numeric id is also "id"
				for _, a := range se.Attr {
					if a.Name.Local == "id" && a.Name.Space != "" {
						ids[len(ids)-1] = a.Value
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(ids) > 0 {
		rels, err := readRels(z, "ppt/presentation.xml")
		if err != nil {
			return nil, err
		}
		byID := map[string]string{}
		for _, r := range rels {
			byID[r.id] = r.target
		}
		var slides []string
		for _, id := range ids {
			if target, ok := byID[id]; ok && z.has(target) {
				slides = append(slides, target)
			}
		}
		if len(slides) > 0 {
			return slides, nil
		}
	}
	var slides []string
	for _, name := range z.namesUnder("ppt/slides") {
		if slideNumber.MatchString(name) {
			slides = append(slides, name)
		}
	}
	sort.Slice(slides, func(i, j int) bool { return slideIndex(slides[i]) < slideIndex(slides[j]) })
	return slides, nil
}

func slideIndex(name string) int {
	m := slideNumber.FindStringSubmatch(name)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// slideNotes returns the text of the notes page linked from the slide ("" when none).
func slideNotes(z *safeZip, slidePart string) (string, error) {
	rels, err := readRels(z, slidePart)
	if err != nil {
		return "", err
	}
	for _, r := range rels {
		if r.kind != "notesSlide" {
			continue
		}
		raw, err := z.readOptional(r.target)
		if err != nil || raw == nil {
			return "", err
		}
		notes, err := readSlide(r.target, raw)
		if err != nil {
			return "", err
		}
		var parts []string
		for _, b := range notes.blocks {
			if b.Kind != TableBlock {
				parts = append(parts, b.Text)
			}
		}
		return cleanInline(strings.Join(parts, " ")), nil
	}
	return "", nil
}
