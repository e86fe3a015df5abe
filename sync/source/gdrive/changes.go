package gdrive

import (
	"context"
	"fmt"

	"google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"

	"github.com/citahq/cita/sync/indexer"
)

// StartPageToken returns the changes API position of "now".
func (d *Drive) StartPageToken(ctx context.Context) (string, error) {
	call := d.svc.Changes.GetStartPageToken().Context(ctx).SupportsAllDrives(true)
	if d.driveID != "" {
		call = call.DriveId(d.driveID)
	}
	res, err := call.Do()
	if err != nil {
		return "", fmt.Errorf("get start page token: %w", err)
	}
	return res.StartPageToken, nil
}

// Changes pages through changes.list from token. A file changed several times appears once, as
// of its last change. Files deleted, trashed, no longer visible, or turned into something cita
// does not index are in removed. It returns an error (and nothing else) unless every page was
// read, so that the caller keeps its token.
func (d *Drive) Changes(ctx context.Context, token string) (changed []indexer.Item, removed []string, next string, err error) {
	pageCall := func(page string) *drive.ChangesListCall {
		call := d.svc.Changes.List(page).Context(ctx).PageSize(1000).
			SupportsAllDrives(true).IncludeItemsFromAllDrives(true).IncludeRemoved(true).
			Fields(googleapi.Field("nextPageToken,newStartPageToken,changes(changeType,fileId,removed,file(" + fileFields + "))"))
		if d.driveID != "" {
			call = call.DriveId(d.driveID)
		}
		return call
	}
	latest := map[string]int{} // file id -> index in changed, or -1 when removed
	var order []string
	for page := token; ; {
		res, err := pageCall(page).Do()
		if err != nil {
			return nil, nil, "", fmt.Errorf("list changes: %w", err)
		}
		for _, c := range res.Changes {
			if c.ChangeType == "drive" || c.FileId == "" {
				continue
			}
			if _, ok := latest[c.FileId]; !ok {
				order = append(order, c.FileId)
			}
			latest[c.FileId] = -1
			if c.Removed || c.File == nil {
				continue
			}
			it, ok, err := d.item(ctx, c.File)
			if err != nil {
				return nil, nil, "", err
			}
			if ok {
				changed = append(changed, it)
				latest[c.FileId] = len(changed) - 1
			}
		}
		if res.NewStartPageToken != "" {
			next = res.NewStartPageToken
			break
		}
		if page = res.NextPageToken; page == "" {
			return nil, nil, "", fmt.Errorf("list changes: a page had neither nextPageToken nor newStartPageToken")
		}
	}
	var final []indexer.Item
	for _, id := range order {
		if i := latest[id]; i >= 0 {
			final = append(final, changed[i])
		} else {
			removed = append(removed, id)
		}
	}
	return final, removed, next, nil
}
