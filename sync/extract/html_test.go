package extract

import (
	"strings"
	"testing"
)

func TestHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		src        string
		wantTitle  string
		wantText   []string // substrings of the dump that must appear
		unwantText []string // substrings that must not
	}{
		{
			name:       "article preferred over body, its header kept",
			src:        `<body><div>sidebar basura</div><article><header><h1>Nota</h1></header><p>cuerpo</p></article></body>`,
			wantTitle:  "Nota",
			wantText:   []string{"P: cuerpo"},
			unwantText: []string{"sidebar"},
		},
		{
			name:       "body fallback drops chrome, scripts and hidden parts",
			src:        `<title>T</title><body><header>logo</header><nav>menu</nav><h2>Sec</h2><p>uno</p><script>alert(1)</script><p aria-hidden="true">x</p><footer>pie</footer></body>`,
			wantTitle:  "T",
			wantText:   []string{"== Sec", "P: uno"},
			unwantText: []string{"logo", "menu", "alert", "pie", "P: x"},
		},
		{
			name:      "first row is the header without th",
			src:       `<main><table><tr><td>Código</td><td>Precio</td></tr><tr><td>SKU-77812</td><td>9</td></tr></table></main>`,
			wantTitle: "f",
			wantText:  []string{"H: Código | Precio", "R: SKU-77812 | 9"},
		},
		{
			name:      "two header rows keep the column names",
			src:       `<main><table><thead><tr><th colspan=2>Grupo</th></tr><tr><th>a</th><th>b</th></tr></thead><tr><td>1</td><td>2</td></tr></table></main>`,
			wantTitle: "f",
			wantText:  []string{"H: a | b", "R: 1 | 2"},
		},
		{
			name:      "headings nest and reset",
			src:       `<main><h1>Doc</h1><h2>A</h2><p>a</p><h3>A1</h3><p>a1</p><h2>B</h2><p>b</p></main>`,
			wantTitle: "Doc",
			wantText:  []string{"== A\nP: a", "== A > A1\nP: a1", "== B\nP: b"},
		},
		{
			name:      "alt text keeps its case",
			src:       `<main><p>Mira <img alt="Diagrama ABC"> aquí</p></main>`,
			wantTitle: "f",
			wantText:  []string{"P: Mira Diagrama ABC aquí"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := extractString(t, "f.html", tt.src)
			dump := dumpDocument(doc)
			if doc.Title != tt.wantTitle {
				t.Errorf("title = %q, want %q", doc.Title, tt.wantTitle)
			}
			for _, s := range tt.wantText {
				if !strings.Contains(dump, s) {
					t.Errorf("dump lacks %q:\n%s", s, dump)
				}
			}
			for _, s := range tt.unwantText {
				if strings.Contains(dump, s) {
					t.Errorf("dump has %q:\n%s", s, dump)
				}
			}
		})
	}
}
