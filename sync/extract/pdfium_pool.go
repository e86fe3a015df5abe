package extract

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// pdfiumPool is started once, on the first PDF, and reused by every later one. pdfium runs as
// WebAssembly inside wazero, so no cgo and no shared library is needed.
var pdfiumPool struct {
	once sync.Once
	pool pdfium.Pool
	err  error
}

// pdfiumWorkers bounds how many PDFs are parsed at once (each worker holds its own wasm memory).
const pdfiumWorkers = 2

func getPdfiumPool() (pdfium.Pool, error) {
	pdfiumPool.once.Do(func() {
		runtimeConfig := wazero.NewRuntimeConfig().
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithCompilationCache(compilationCache()).
			// Lets Kill abort a page that runs past the timeout.
			WithCloseOnContextDone(true)
		pdfiumPool.pool, pdfiumPool.err = webassembly.Init(webassembly.Config{
			MinIdle:       1,
			MaxIdle:       pdfiumWorkers,
			MaxTotal:      pdfiumWorkers,
			ReuseWorkers:  true,
			RuntimeConfig: runtimeConfig,
			// Documents arrive as bytes: the module sees no file system at all.
			FSConfig: wazero.NewFSConfig(),
			Stdout:   io.Discard,
			Stderr:   io.Discard,
		})
		if pdfiumPool.err != nil {
			pdfiumPool.err = fmt.Errorf("start pdfium: %w", pdfiumPool.err)
		}
	})
	return pdfiumPool.pool, pdfiumPool.err
}

// compilationCache keeps wazero's compiled pdfium under the user's cache directory, so only the
// first start on a machine pays the ~5 s compile; it falls back to memory when there is no
// writable cache directory.
func compilationCache() wazero.CompilationCache {
	if base, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(base, "cita", "wazero")
		if err := os.MkdirAll(dir, 0o700); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				return cache
			}
		}
	}
	return wazero.NewCompilationCache()
}

// withPdfium borrows a pdfium instance for fn. When ctx ends first, the instance is killed, which
// aborts the running wasm call, and ctx's error is returned.
func withPdfium(ctx context.Context, fn func(pdfium.Pdfium) error) error {
	pool, err := getPdfiumPool()
	if err != nil {
		return err
	}
	instance, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("get pdfium instance: %w", err)
	}
	stopKill := context.AfterFunc(ctx, func() { _ = instance.Kill() })
	err = fn(instance)
	if !stopKill() {
		// Kill ran (or is running): the instance is gone.
		return ctx.Err()
	}
	_ = instance.Close()
	return err
}
