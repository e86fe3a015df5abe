package rag

// reading is what the offline reader makes of a request: the kind of answer the question asks
// for, the question's variants and every answer unit of the sources scored, best first. The
// relevance guard (Support) and the extractive composer judge the same units, so the pipeline
// reads a request once and both use that reading.
type reading struct {
	expect   Expect
	variants []queryVariant
	units    []scoredUnit
	sources  preparedSources // the sources' stems, per language; empty without sources
}

// read returns req's reading: the one the pipeline attached (see withReading), or a new one.
func (req ComposeRequest) read() *reading {
	if req.reading != nil {
		return req.reading
	}
	expect := DetectExpect(req.Question)
	variants := questionVariants(req)
	r := &reading{expect: expect, variants: variants}
	if len(req.Sources) > 0 {
		r.sources = prepareFor(variants, req.Sources)
		r.units = scoreUnits(expect, variants, req.Sources, r.sources)
	}
	return r
}

// withReading returns req carrying its reading, for the guard and the composer to share. Set
// it only on a request that no longer changes.
func (req ComposeRequest) withReading() ComposeRequest {
	req.reading = req.read()
	return req
}
