package extract

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// xmlTokens calls fn for every token of an XML part. It returns an error wrapping ErrCorrupt
// when the XML is malformed; fn's own error stops the walk and is returned as is.
func xmlTokens(part string, data []byte, fn func(dec *xml.Decoder, tok xml.Token) error) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, part, err)
		}
		if err := fn(dec, tok); err != nil {
			return err
		}
	}
}

// xmlAttr returns the value of the attribute with this local name, whatever its prefix.
func xmlAttr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// xmlIntAttr parses an integer attribute; def when missing or malformed.
func xmlIntAttr(se xml.StartElement, local string, def int) int {
	n, err := strconv.Atoi(xmlAttr(se, local))
	if err != nil {
		return def
	}
	return n
}

// coreProperties reads title, creator and modified from an OOXML docProps/core.xml or an
// ODF meta.xml (dc:title, dc:creator/meta:initial-creator, dcterms:modified/dc:date).
type coreProperties struct {
	Title, Author string
	Modified      string
}

func readCoreProperties(part string, data []byte) (coreProperties, error) {
	var props coreProperties
	var current, initialCreator string
	err := xmlTokens(part, data, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			current = t.Name.Local
		case xml.EndElement:
			current = ""
		case xml.CharData:
			text := string(t)
			switch current {
			case "title":
				props.Title += text
			case "creator":
				props.Author += text
			case "initial-creator":
				initialCreator += text
			case "modified", "date":
				props.Modified += text
			}
		}
		return nil
	})
	if initialCreator != "" { // ODF: dc:creator is whoever saved last
		props.Author = initialCreator
	}
	props.Title, props.Author = cleanInline(props.Title), cleanInline(props.Author)
	return props, err
}

// xmlWalk is the part every office-XML walker shares: it checks the context every 4,096
// tokens, and while inside a skipped subtree (skipDepth > 0: alternate content, hidden text,
// notes) it only tracks depth, so the walker's handlers never see that subtree.
type xmlWalk struct {
	ctx       context.Context
	skipDepth int
	tokens    int
}

// dispatch routes one token to the walker's handlers. It returns the context's error when the
// walk must stop.
func (x *xmlWalk) dispatch(tok xml.Token, start func(xml.StartElement), end func(xml.EndElement), chars func(xml.CharData)) error {
	if x.tokens++; x.tokens%4096 == 0 {
		if err := x.ctx.Err(); err != nil {
			return err
		}
	}
	switch t := tok.(type) {
	case xml.StartElement:
		if x.skipDepth > 0 {
			x.skipDepth++
			return nil
		}
		start(t)
	case xml.EndElement:
		if x.skipDepth > 0 {
			x.skipDepth--
			return nil
		}
		end(t)
	case xml.CharData:
		if x.skipDepth == 0 {
			chars(t)
		}
	}
	return nil
}
