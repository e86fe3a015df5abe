package docwrite

// ODFNS declares the OpenDocument namespaces the content, meta and manifest parts use.
const ODFNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"`

// ODF zips an OpenDocument package: the mimetype first and stored, then the manifest, the
// content and the meta part. It returns an error only when zipping fails.
func ODF(mime, manifest, content, meta string) ([]byte, error) {
	return Zip([]Member{
		{"mimetype", mime},
		{"META-INF/manifest.xml", manifest},
		{"content.xml", content},
		{"meta.xml", meta},
	}, true)
}
