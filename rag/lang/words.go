package lang

import "strings"

// spanishWords are frequent Spanish function words that are not English words (so "a", "no", "me",
// "he", "son", "era" are left out).
var spanishWords = strings.Fields(`
de la que el en y los se del las un por con una su para es al lo como más mas pero sus le ya
este sí si porque esta está entre cuando muy sin sobre también fue había ser han hay donde dónde
quien quién desde todo nos durante todos uno les ni contra otros ese eso ellos esto mí antes
algunos qué unos yo otro otras otra él tanto esa estos mucho quienes nada muchos cual cuál poco
ella estar estas algunas algo nosotros mis tú te ti tu tus ellas vosotros os nuestro nuestra
nuestros nuestras estoy estás están puede pueden debe deben cada según hasta tiene tienen hacer
sea así cómo cuándo aquí después ahora siempre también aunque mientras además pues luego usted
ustedes dice hace sido tiene tenemos somos eres fueron será serán sería sobre hacia tras cuales
dos tres cuatro años día días vez veces otro nuevo nueva parte lugar forma caso`)

// englishWords are frequent English function words that are not Spanish words.
var englishWords = strings.Fields(`
the of and to in is that it for was on are as with his they at be this from have or by had not
but what all were when we there can an your which their said if do will each about how up out
them then she many some so these would other into has more her two like him see could been who
its now did get may over only our just most very after any same does such because here why must
even should than those where while though also well shall were being having i you my it's don't
doesn't isn't aren't wasn't can't won't i'm we're they're there's that's three four years day
days time new first last one between through during before under again against`)

// functionWords maps each listed word to its language, "es" or "en".
var functionWords = func() map[string]string {
	m := make(map[string]string, len(spanishWords)+len(englishWords))
	for _, w := range spanishWords {
		m[w] = Spanish
	}
	for _, w := range englishWords {
		if m[w] == Spanish {
			panic("lang: " + w + " is listed as both Spanish and English")
		}
		m[w] = English
	}
	return m
}()

// isContraction reports whether a lowercased word ends with an English contraction ('s, n't, 're,
// 've, 'll, 'm, 'd).
func isContraction(w []byte) bool {
	for _, suffix := range []string{"'s", "n't", "'re", "'ve", "'ll", "'m", "'d"} {
		if len(w) > len(suffix) && string(w[len(w)-len(suffix):]) == suffix {
			return true
		}
	}
	return false
}
