package lang

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want string
	}{
		{"spanish policy", "Los empleados tienen derecho a 23 días hábiles de vacaciones al año. Las solicitudes se envían a Recursos Humanos con quince días de antelación.", Spanish},
		{"spanish question", "¿Cuántos días de vacaciones me quedan este año?", Spanish},
		{"spanish without accents", "Para pedir las vacaciones hay que rellenar el formulario y enviarlo al responsable del equipo antes del viernes.", Spanish},
		{"spanish exclamation", "¡Bienvenidos al equipo! Aquí encontrarás todo lo que necesitas para tu primer día.", Spanish},
		{"spanish uppercase", "EL PLAZO DE SOLICITUD TERMINA EL 31 DE MARZO Y NO SE ADMITEN CAMBIOS DESPUÉS DE ESA FECHA.", Spanish},
		{"english policy", "Employees are entitled to 23 working days of paid leave per year. Requests should be sent to Human Resources at least two weeks in advance.", English},
		{"english question", "How many vacation days do I have left this year?", English},
		{"english contractions", "We're sorry, but the office isn't open on weekends and it's closed on public holidays.", English},
		{"english uppercase", "THE DEADLINE FOR ALL REQUESTS IS THE END OF MARCH AND NO CHANGES ARE ACCEPTED AFTER THAT.", English},
		{"spanish with an english name", "El manual se llama The Employee Handbook y explica cómo se calculan las vacaciones de todos los empleados de la empresa.", Spanish},
		{"english with a spanish word", "The team celebrated the launch with a fiesta in the main office, and everyone was invited to join.", English},
		{"empty", "", Simple},
		{"whitespace", " \n\t ", Simple},
		{"one word", "Vacaciones", Simple},
		{"short english", "Hello", Simple},
		{"short spanish heading", "Política de vacaciones", Simple},
		{"short english heading", "Holiday policy", Simple},
		{"numbers", "2026 12,50 3.1415 100%", Simple},
		{"table of codes", "A17 B22 C33 D44 E55 F66\nX-101 X-102 X-103 de\nZ9 Z8 Z7 Z6 Z5 the", Simple},
		{"markdown table of codes", "| Código | Cuenta | Importe |\n| --- | --- | --- |\n| 4300 | 430 | 12,50 |\n| 4310 | 431 | 3,00 |\n| 5720 | 572 | 99,99 |", Simple},
		{"go code", "func main() {\n\tfor i := 0; i < len(items); i++ {\n\t\tif items[i] == nil { return }\n\t}\n}", Simple},
		{"python code", "for item in items:\n    if item is not None and item.value > 0:\n        result[item.key] = item.value\n    else:\n        continue", Simple},
		{"sql", "SELECT id, title FROM documents WHERE lang = $1 AND groups && $2 ORDER BY updated_at DESC;", Simple},
		{"mixed half and half", "Los empleados tienen derecho a vacaciones pagadas cada año. Employees are entitled to paid holidays every year. Las solicitudes se envían por correo. Requests are sent by email.", Simple},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Detect(tt.text); got != tt.want {
				s := scan(truncate(tt.text, maxBytes))
				t.Errorf("Detect(%q) = %q, want %q (evidence %+v)", tt.text, got, tt.want, s)
			}
		})
	}
}

func TestDetectReadsOnlyTheStart(t *testing.T) {
	t.Parallel()
	spanish := strings.Repeat("Los empleados tienen derecho a sus vacaciones cada año. ", 100) // > 4 KB
	english := strings.Repeat("The employees are entitled to their holidays every year. ", 200)
	if got := Detect(spanish + english); got != Spanish {
		t.Errorf("Spanish start, English tail: Detect = %q, want %q", got, Spanish)
	}
	if got := Detect(english + spanish); got != English {
		t.Errorf("English start, Spanish tail: Detect = %q, want %q", got, English)
	}
}

func TestTruncateKeepsRunes(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("ñ", 3000) // two bytes each
	for _, n := range []int{0, 1, 2, 4095, 4096, 4097} {
		got := truncate(s, n)
		if len(got) > n || len(got) < n-1 || strings.ToValidUTF8(got, "?") != got {
			t.Errorf("truncate(%d) = %d bytes, valid UTF-8 %v", n, len(got), strings.ToValidUTF8(got, "?") == got)
		}
	}
}

func FuzzDetect(f *testing.F) {
	f.Add("¿Dónde está la oficina?")
	f.Add("Where is the office?")
	f.Add("it'\xff\xe2\x80")
	f.Fuzz(func(t *testing.T, text string) {
		got := Detect(text)
		if got != Spanish && got != English && got != Simple {
			t.Fatalf("Detect(%q) = %q", text, got)
		}
		if Detect(truncate(text, maxBytes)) != got {
			t.Fatalf("Detect(%q) depends on text past %d bytes", text, maxBytes)
		}
	})
}

func BenchmarkDetect(b *testing.B) {
	text := strings.Repeat("Los empleados tienen derecho a 23 días hábiles de vacaciones al año. The policy applies to everyone. ", 60)
	b.SetBytes(maxBytes)
	b.ReportAllocs()
	for b.Loop() {
		Detect(text)
	}
}

func TestLeanOnShortQuestions(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"and in Bogotá?":        English,
		"¿y en Madrid?":         Spanish,
		"cuanto cuesta el cafe": Spanish,
		"what about SKU-77835?": English,
		"precio del SKU-77812":  Spanish,
		"SKU-77812":             "",
	} {
		if got := Lean(text); got != want {
			t.Errorf("Lean(%q) = %q, want %q", text, got, want)
		}
	}
}
