package extract

import (
	"encoding/xml"
	"path"
	"strings"
)

// relationship is one entry of an OOXML .rels part, its target resolved to a member name.
type relationship struct {
	id, kind, target string
}

// readRels reads the relationships of a part ("ppt/slides/slide1.xml" reads
// "ppt/slides/_rels/slide1.xml.rels"); none when the rels part is missing.
func readRels(z *safeZip, part string) ([]relationship, error) {
	relsName := path.Join(path.Dir(part), "_rels", path.Base(part)+".rels")
	data, err := z.readOptional(relsName)
	if err != nil || data == nil {
		return nil, err
	}
	var rels []relationship
	err = xmlTokens(relsName, data, func(_ *xml.Decoder, tok xml.Token) error {
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "Relationship" {
			if strings.EqualFold(xmlAttr(se, "TargetMode"), "External") {
				return nil
			}
			target := xmlAttr(se, "Target")
			if strings.HasPrefix(target, "/") {
				target = strings.TrimPrefix(target, "/")
			} else {
				target = path.Join(path.Dir(part), target)
			}
			kind := xmlAttr(se, "Type")
			rels = append(rels, relationship{id: xmlAttr(se, "Id"), kind: kind[strings.LastIndex(kind, "/")+1:], target: target})
		}
		return nil
	})
	return rels, err
}
