package extract

import (
	"encoding/xml"
	"strings"
	"time"

	"github.com/citahq/cita/rag"
)

// Validity keys, as front matter or office custom properties may name them (case-insensitive,
// "-" and " " read as "_").
var (
	validFromKeys    = []string{"valid_from", "effective", "effective_date", "effective_from", "vigente_desde", "vigencia_desde"}
	validUntilKeys   = []string{"valid_until", "valid_to", "expires", "expiry", "expiry_date", "expiration_date", "vigente_hasta", "vigencia_hasta", "caduca"}
	supersededByKeys = []string{"superseded_by", "replaced_by", "sustituido_por", "reemplazado_por"}
	supersededOnKeys = []string{"superseded_on", "replaced_on", "sustituido_el"}
	// statusKeys hold a word such as "superseded", "archived", "obsolete".
	statusKeys = []string{"status", "estado"}
)

// supersededStatus are status values that mean the document was replaced.
var supersededStatus = map[string]bool{
	"superseded": true, "archived": true, "obsolete": true, "deprecated": true, "replaced": true, "retired": true,
	"sustituido": true, "sustituida": true, "archivado": true, "archivada": true, "obsoleto": true, "obsoleta": true,
	"derogado": true, "derogada": true,
}

// validityFrom reads a document's validity from its metadata fields (front matter, custom
// properties); dates that do not parse are ignored, as is a window that ends before it starts.
func validityFrom(lookup func(keys ...string) any) rag.Validity {
	v := rag.Validity{
		From:         yamlTime(lookup(validFromKeys...)),
		Until:        yamlTime(lookup(validUntilKeys...)),
		SupersededBy: cleanInline(yamlString(lookup(supersededByKeys...))),
		SupersededOn: yamlTime(lookup(supersededOnKeys...)),
	}
	status := strings.ToLower(strings.TrimSpace(yamlString(lookup(statusKeys...))))
	v.Superseded = v.SupersededBy != "" || !v.SupersededOn.IsZero() || supersededStatus[status]
	if v.Validate() != nil {
		v.From, v.Until = time.Time{}, time.Time{}
	}
	return v
}

// lookupIn returns a case-insensitive lookup over fields, reading "-" and " " in keys as "_".
func lookupIn(fields map[string]any) func(keys ...string) any {
	norm := func(k string) string {
		return strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(k)))
	}
	byKey := make(map[string]any, len(fields))
	for k, v := range fields {
		byKey[norm(k)] = v
	}
	return func(keys ...string) any {
		for _, k := range keys {
			if v, ok := byKey[k]; ok && v != nil {
				return v
			}
		}
		return nil
	}
}

// readCustomProperties reads an OOXML docProps/custom.xml into name -> text value.
func readCustomProperties(part string, data []byte) (map[string]any, error) {
	out := map[string]any{}
	var name string
	var depth int
	err := xmlTokens(part, data, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if t.Name.Local == "property" {
				name = xmlAttr(t, "name")
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "property" {
				name = ""
			}
		case xml.CharData:
			if name != "" {
				prev, _ := out[name].(string)
				out[name] = prev + string(t)
			}
		}
		return nil
	})
	return out, err
}

// readOOXMLValidity reads the validity a docx or pptx declares in its custom properties.
func readOOXMLValidity(z *safeZip) (rag.Validity, error) {
	raw, err := z.readOptional("docProps/custom.xml")
	if err != nil || raw == nil {
		return rag.Validity{}, err
	}
	fields, err := readCustomProperties("docProps/custom.xml", raw)
	if err != nil {
		return rag.Validity{}, err
	}
	return validityFrom(lookupIn(fields)), nil
}

// ValidityFromFields reads a validity from metadata fields a source keeps beside the content
// (Drive properties, object metadata), with the keys front matter uses.
func ValidityFromFields(fields map[string]string) rag.Validity {
	m := make(map[string]any, len(fields))
	for k, v := range fields {
		m[k] = v
	}
	return validityFrom(lookupIn(m))
}
