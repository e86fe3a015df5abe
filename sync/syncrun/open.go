package syncrun

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/source"
	"github.com/citahq/cita/sync/source/gdrive"
	"github.com/citahq/cita/sync/source/s3"
)

// OpenSource builds the connector a source's configuration names. It returns an error naming
// the source when the type is unknown or the connector cannot be set up (bad credentials file,
// invalid endpoint or access rules); run config.ValidateSources first for field-level errors.
func OpenSource(ctx context.Context, cfg config.SourceConfig, logger *slog.Logger) (Source, error) {
	logger = logger.With(slog.String("source", cfg.Name))
	var conn Connector
	var err error
	switch cfg.Type {
	case "folder":
		conn, err = source.NewFolder(cfg, logger)
	case "gdrive":
		conn, err = gdrive.New(ctx, cfg, logger)
	case "s3":
		conn, err = s3.New(cfg, logger)
	default:
		err = fmt.Errorf("source %s: type %q is not known; use folder, gdrive or s3", cfg.Name, cfg.Type)
	}
	if err != nil {
		return Source{}, err
	}
	return Source{Name: cfg.Name, Connector: conn, FullEvery: cfg.GDrive.FullEvery, MaxDeleteFraction: cfg.MaxDeleteFraction}, nil
}
