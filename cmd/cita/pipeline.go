package main

import (
	"context"

	"github.com/citahq/cita/rag"
)

// pipeline wires the answering pipeline for the configured models: offline, the extractive
// composer.
func (a *app) pipeline(_ context.Context, _ *env) (*rag.Pipeline, error) {
	return rag.NewPipeline(a.search, rag.Extractive{}, nil, rag.PipelineOptions{}), nil
}

// rewriter returns the follow-up rewriter for the configured models (nil until one exists).
func (a *app) rewriter(_ context.Context, _ *env) (rag.Rewriter, error) {
	return nil, nil
}
