package discord

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"
)

// libraryLogger receives discordgo's own log lines ("[DG0] …" on the standard logger
// otherwise), which would break a JSON log. discordgo has one package-wide logger: the first
// adapter's logger takes it, once (SetLibraryLogger replaces it).
var (
	libraryLogger      atomic.Pointer[slog.Logger]
	installLibraryOnce sync.Once
)

// SetLibraryLogger sends discordgo's log lines to logger, as records with component=discordgo
// at the matching level (its errors as errors, warnings as warnings, and so on).
func SetLibraryLogger(logger *slog.Logger) {
	installLibraryOnce.Do(installLibraryLogger)
	libraryLogger.Store(logger)
}

// adoptLibraryLogger gives discordgo's log lines to logger unless someone did already.
func adoptLibraryLogger(logger *slog.Logger) {
	installLibraryOnce.Do(installLibraryLogger)
	libraryLogger.CompareAndSwap(nil, logger)
}

func installLibraryLogger() {
	discordgo.Logger = func(level, _ int, format string, args ...any) {
		logger := libraryLogger.Load()
		if logger == nil {
			return
		}
		logger.Log(context.Background(), libraryLevel(level), fmt.Sprintf(format, args...), slog.String("component", "discordgo"))
	}
}

// libraryLevel maps discordgo's levels to slog's.
func libraryLevel(level int) slog.Level {
	switch level {
	case discordgo.LogError:
		return slog.LevelError
	case discordgo.LogWarning:
		return slog.LevelWarn
	case discordgo.LogInformational:
		return slog.LevelInfo
	default:
		return slog.LevelDebug
	}
}
