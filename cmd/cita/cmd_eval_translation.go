package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
)

// translationRow is one way of searching in the other language, measured.
type translationRow struct {
	Name   string                  `json:"name"`
	Report *eval.TranslationReport `json:"report"`
}

// runTranslationEval measures whether cross-lingual search keeps the sense a person means: for
// every term of the set, is one of its senses among what the question is searched as in the
// other language? Three ways are compared: the translator's sentence alone, with the
// dictionary's other senses, and as cita searches (with the workplace glossary and the
// organisation's own).
func runTranslationEval(ctx context.Context, e *env, path string, asJSON, misses bool) error {
	terms, err := eval.LoadTranslationTerms(path)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	tr, err := newTranslator(e.translator, e.logger, e.translatorTimeout)
	if err != nil {
		return err
	}
	defer tr.stop()
	org, err := cfg.Answers.OrgGlossary()
	if err != nil {
		return err
	}
	ways := []struct {
		name string
		opts func() rag.HybridOptions
	}{
		{"translation only", func() rag.HybridOptions {
			o := rag.HybridOptions{Translator: translationOnly{tr.Translator}}
			if tr.Translator == nil {
				o.Translator = nil
			}
			return o
		}},
		{"with the dictionary's senses", func() rag.HybridOptions { return rag.HybridOptions{Translator: tr.Translator} }},
		{"as searched (senses and glossaries)", func() rag.HybridOptions {
			return rag.HybridOptions{Translator: tr.Translator, Lexicon: lexiconFor(org)}
		}},
	}
	var rows []translationRow
	for _, w := range ways {
		h := rag.NewHybrid(nil, nil, w.opts())
		rep, err := eval.RunTranslation(ctx, terms, func(ctx context.Context, q, from, to string) (eval.Searched, error) {
			text, bridges, err := h.Renderings(ctx, q, from, to)
			return eval.Searched{Translation: text, Bridges: bridges}, err
		})
		if err != nil {
			return err
		}
		if !misses {
			rep.Outcomes = nil
		} else {
			rep.Outcomes = rep.Misses()
		}
		rows = append(rows, translationRow{Name: w.name, Report: rep})
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(rows)
	}
	fmt.Fprintf(e.stdout, "%s: %d terms, translator %s; the share whose meant sense is among the searched terms\n", path, len(terms), tr.name)
	for _, r := range rows {
		fmt.Fprintf(e.stdout, "%-38s %s\n", r.Name, r.Report)
	}
	last := rows[len(rows)-1].Report
	fmt.Fprint(e.stdout, "by domain (as searched):")
	for _, d := range last.Domains() {
		fmt.Fprintf(e.stdout, " %s %.2f", d, last.ByDomain[d])
	}
	fmt.Fprintln(e.stdout)
	if misses {
		for _, o := range last.Outcomes {
			fmt.Fprintf(e.stdout, "miss %s [%s %s] %q searched as %q\n", o.ID, o.From, o.Domain, o.Term, o.Translation)
		}
	}
	return nil
}

// translationOnly hides a translator's senses: its sentence alone is searched.
type translationOnly struct{ rag.Translator }
