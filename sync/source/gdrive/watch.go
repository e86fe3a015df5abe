package gdrive

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/api/drive/v3"
)

// WatchChanges registers a push-notification channel (changes.watch) that POSTs to address,
// carrying token, whenever something changes after the current page token; Drive keeps it until
// expires at most (it may choose an earlier expiration, which is returned with the channel's
// resource id). It returns an error when Drive refuses the channel (an address not on a
// verified domain, for instance).
func (d *Drive) WatchChanges(ctx context.Context, channelID, address, token string, expires time.Time) (resourceID string, expiration time.Time, err error) {
	page, err := d.StartPageToken(ctx)
	if err != nil {
		return "", time.Time{}, err
	}
	call := d.svc.Changes.Watch(page, &drive.Channel{
		Id: channelID, Type: "web_hook", Address: address, Token: token, Expiration: expires.UnixMilli(),
	}).Context(ctx).SupportsAllDrives(true).IncludeItemsFromAllDrives(true)
	if d.driveID != "" {
		call = call.DriveId(d.driveID)
	}
	ch, err := call.Do()
	if err != nil {
		return "", time.Time{}, fmt.Errorf("watch changes: %w", err)
	}
	expiration = expires
	if ch.Expiration > 0 {
		expiration = time.UnixMilli(ch.Expiration)
	}
	return ch.ResourceId, expiration, nil
}

// StopChannel stops a push-notification channel (channels.stop). It returns an error when Drive
// refuses; a channel already expired or unknown is not an error worth retrying.
func (d *Drive) StopChannel(ctx context.Context, channelID, resourceID string) error {
	if err := d.svc.Channels.Stop(&drive.Channel{Id: channelID, ResourceId: resourceID}).Context(ctx).Do(); err != nil {
		return fmt.Errorf("stop channel %s: %w", channelID, err)
	}
	return nil
}
