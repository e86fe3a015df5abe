package bot

import (
	"context"
	"log/slog"
	"runtime/debug"
)

// LogPanic logs a recovered panic value p at Error with the stack of the goroutine that
// panicked (call it from the deferred function that recovered). attrs add context.
func LogPanic(ctx context.Context, logger *slog.Logger, msg string, p any, attrs ...any) {
	attrs = append(attrs, slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
	logger.ErrorContext(ctx, msg, attrs...)
}
