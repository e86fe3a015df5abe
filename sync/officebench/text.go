package officebench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Word banks for office prose: a subject, a verb, an object and a tail make one sentence, so the
// text has the vocabulary spread and sentence lengths of procedures, price lists and minutes.
var (
	subjectsES = []string{"El departamento de compras", "La dirección financiera", "Cada responsable de área", "El equipo de soporte", "Recursos humanos", "El comité de seguridad", "La oficina técnica", "El servicio de atención al cliente", "La gerencia", "El almacén central"}
	verbsES    = []string{"revisa", "aprueba", "registra", "comunica", "actualiza", "valida", "archiva", "solicita", "coordina", "supervisa"}
	objectsES  = []string{"las solicitudes de vacaciones", "los pedidos a proveedores", "el inventario del almacén", "las facturas pendientes", "el plan de formación", "los contratos de mantenimiento", "las incidencias abiertas", "los presupuestos anuales", "las altas de empleados", "el calendario de auditorías"}
	tailsES    = []string{"antes del cierre del trimestre", "en un plazo de quince días hábiles", "según el procedimiento vigente", "con copia al responsable directo", "a través de la intranet", "cada lunes por la mañana", "salvo indicación contraria de la gerencia", "y deja constancia en el acta", "con la firma del director", "conforme a la política de privacidad"}
	subjectsEN = []string{"The purchasing team", "Finance", "Each line manager", "The support desk", "Human resources", "The security committee", "Facilities", "The sales office"}
	verbsEN    = []string{"reviews", "approves", "records", "reports", "updates", "validates", "archives", "requests"}
	objectsEN  = []string{"leave requests", "supplier orders", "warehouse stock", "open invoices", "the training plan", "maintenance contracts", "open incidents", "annual budgets"}
	tailsEN    = []string{"before the quarter closes", "within fifteen working days", "as the current procedure requires", "copying the line manager", "through the intranet", "every Monday morning", "unless management decides otherwise", "and records it in the minutes"}
	headingsES = []string{"Objetivo", "Alcance", "Procedimiento", "Responsables", "Plazos", "Tarifa", "Inventario", "Anexo", "Condiciones", "Seguimiento", "Incidencias", "Presupuesto"}
	headingsEN = []string{"Purpose", "Scope", "Procedure", "Owners", "Deadlines", "Price list", "Stock", "Appendix", "Terms", "Follow-up"}
	areas      = []string{"compras", "rrhh", "finanzas", "soporte", "legal", "operaciones"}
	tables     = [][]string{
		{"Referencia", "Descripción", "Unidades", "Importe"},
		{"Código", "Artículo", "Cantidad", "Precio"},
		{"Item", "Description", "Qty", "Amount"},
	}
	items = []string{"Silla ergonómica", "Mesa de reunión", "Cuaderno A4", "Monitor 27 pulgadas", "Licencia anual", "Servicio de limpieza", "Café en grano", "Tóner negro", "Portátil 14 pulgadas", "Auriculares"}
	names = []string{"Ana Núñez", "Luis Peña", "Marta Ibáñez", "Jorge Ruiz", "Carmen Díaz", "Pablo Sáenz", "Lucía Gómez", "Iñaki Etxeberria"}
)

// writer draws realistic text from a seeded source, so the same seed writes the same folder.
type writer struct {
	rng     *rand.Rand
	english bool
}

func pick[T any](w *writer, xs []T) T { return xs[w.rng.IntN(len(xs))] }

// logUniform returns an integer in [lo, hi] whose logarithm is uniform: most values small, a
// long tail of large ones, like file sizes on a shared drive.
func (w *writer) logUniform(lo, hi int) int {
	v := math.Exp(math.Log(float64(lo)) + w.rng.Float64()*(math.Log(float64(hi+1))-math.Log(float64(lo))))
	return min(hi, max(lo, int(v)))
}

func (w *writer) sentence() string {
	var s string
	if w.english {
		s = pick(w, subjectsEN) + " " + pick(w, verbsEN) + " " + pick(w, objectsEN) + " " + pick(w, tailsEN)
	} else {
		s = pick(w, subjectsES) + " " + pick(w, verbsES) + " " + pick(w, objectsES) + " " + pick(w, tailsES)
	}
	switch w.rng.IntN(6) {
	case 0:
		s += fmt.Sprintf(" (ref. %s)", w.code())
	case 1:
		s += fmt.Sprintf(", por un importe de %s €", w.amount())
	}
	return s + "."
}

func (w *writer) paragraph() string {
	n := 2 + w.rng.IntN(5)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = w.sentence()
	}
	return strings.Join(parts, " ")
}

func (w *writer) code() string {
	return fmt.Sprintf("%s-%05d", pick(w, []string{"SKU", "CAF", "PED", "FAC", "INC"}), w.rng.IntN(100000))
}

func (w *writer) amount() string {
	n := w.rng.IntN(9_000_000) + 100
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (w *writer) heading(i int) string {
	if w.english {
		return fmt.Sprintf("%d. %s", i+1, pick(w, headingsEN))
	}
	return fmt.Sprintf("%d. %s", i+1, pick(w, headingsES))
}

func (w *writer) table(rows int) [][]string {
	header := pick(w, tables)
	out := [][]string{header}
	for range rows {
		out = append(out, []string{w.code(), pick(w, items), fmt.Sprint(1 + w.rng.IntN(500)), w.amount()})
	}
	return out
}
