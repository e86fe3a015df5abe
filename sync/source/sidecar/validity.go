package sidecar

import (
	"context"

	"github.com/citahq/cita/config"
)

// ValidityName is the validity sidecar's file name: in a folder, it marks documents of its
// subtree as superseded or valid for a window, with the keys of a source's validity rules and
// globs relative to that folder. The nearest sidecar with a matching rule wins.
const ValidityName = ".cita-validity.yaml"

// ValidityFor returns the mark the nearest matching validity sidecar gives rel, false when none
// applies, or an error when a validity sidecar on the way cannot be read or parsed.
func (r *Resolver) ValidityFor(ctx context.Context, rel string) (config.ValidityMark, bool, error) {
	var mark config.ValidityMark
	var found bool
	err := r.validity.walk(ctx, rel, func(rules *config.ValidityRules, inner string) bool {
		mark, found = rules.For(inner)
		return found
	})
	if err != nil {
		return config.ValidityMark{}, false, err
	}
	return mark, found, nil
}

// parseValidity reads a validity sidecar's YAML; unknown keys are errors.
func parseValidity(data []byte) (*config.ValidityRules, error) {
	var rules config.ValidityRules
	if err := decodeStrict(data, &rules); err != nil {
		return nil, err
	}
	if err := rules.Compile(); err != nil {
		return nil, err
	}
	return &rules, nil
}
