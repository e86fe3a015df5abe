package push

import (
	"context"
	"log/slog"
	"time"
)

// Defaults for a channel's life and its renewal.
const (
	DefaultTTL         = 24 * time.Hour
	DefaultRenewBefore = time.Hour
	checkEvery         = time.Minute
)

// Watcher registers and stops Drive push channels (*gdrive.Drive).
type Watcher interface {
	WatchChanges(ctx context.Context, channelID, address, token string, expires time.Time) (resourceID string, expiration time.Time, err error)
	StopChannel(ctx context.Context, channelID, resourceID string) error
}

// Renewer keeps one live channel for a source: it registers one when none is left that lives
// longer than RenewBefore, then stops the older ones. Construct it with a literal and Run it.
type Renewer struct {
	Source      string
	Address     string // the public URL of POST /hooks/gdrive
	Drive       Watcher
	Channels    *Channels
	TTL         time.Duration // requested channel life; 0 means DefaultTTL
	RenewBefore time.Duration // 0 means DefaultRenewBefore
	Logger      *slog.Logger
}

// Run renews until ctx ends, checking every minute (and at once).
func (r *Renewer) Run(ctx context.Context) {
	t := time.NewTicker(checkEvery)
	defer t.Stop()
	for {
		if _, err := r.Renew(ctx); err != nil && ctx.Err() == nil {
			r.Logger.ErrorContext(ctx, "drive push channel not renewed; the source syncs on its schedule until it is",
				slog.String("source", r.Source), slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Renew registers a new channel when the current one expires within RenewBefore (or there is
// none), then stops and forgets the others. It returns the channel now current, or an error
// when Drive or the database refuses.
func (r *Renewer) Renew(ctx context.Context) (Channel, error) {
	ttl, before := r.TTL, r.RenewBefore
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if before <= 0 {
		before = DefaultRenewBefore
	}
	var current Channel
	_, err := r.Channels.claim(ctx, r.Source, func(ctx context.Context) error {
		ch, ok, err := r.Channels.Current(ctx, r.Source)
		if err != nil {
			return err
		}
		if ok && time.Until(ch.ExpiresAt) > before {
			current = ch
			return nil
		}
		id, err := newSecret()
		if err != nil {
			return err
		}
		token, err := newSecret()
		if err != nil {
			return err
		}
		resource, expires, err := r.Drive.WatchChanges(ctx, "cita-"+id[:32], r.Address, token, time.Now().Add(ttl))
		if err != nil {
			return err
		}
		current = Channel{Source: r.Source, ID: "cita-" + id[:32], ResourceID: resource, ExpiresAt: expires}
		if err := r.Channels.save(ctx, current, token); err != nil {
			return err
		}
		r.Logger.InfoContext(ctx, "drive push channel registered", slog.String("source", r.Source),
			slog.String("channel_id", current.ID), slog.Time("expires_at", expires))
		return nil
	})
	if err != nil || current.ID == "" {
		return current, err
	}
	old, err := r.Channels.older(ctx, r.Source, current.ID)
	if err != nil {
		return current, err
	}
	for _, ch := range old {
		if ch.ExpiresAt.After(time.Now()) {
			if err := r.Drive.StopChannel(ctx, ch.ID, ch.ResourceID); err != nil {
				r.Logger.WarnContext(ctx, "stop old drive channel", slog.String("channel_id", ch.ID), slog.String("error", err.Error()))
			}
		}
		if err := r.Channels.forget(ctx, ch.ID); err != nil {
			return current, err
		}
	}
	return current, nil
}
