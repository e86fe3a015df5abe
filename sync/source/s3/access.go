package s3

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/minio/minio-go/v7"

	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/source/sidecar"
)

// maxSidecarBytes bounds one sidecar object.
const maxSidecarBytes = 1 << 20

// accessResolver gives a listing's objects their groups: the nearest sidecar's, else the
// source's rules. Which sidecars exist is known from the listing for the prefixes listed to
// their end; anywhere else (a folder above a prefix, the rest of a listing that failed) a
// missing sidecar cannot be told from an unlisted one, so it is fetched.
type accessResolver struct {
	b        *Bucket
	sidecars map[string]bool // sidecar keys seen in the listing
	complete []string        // prefixes listed to their end
}

func newAccessResolver(b *Bucket) *accessResolver {
	return &accessResolver{b: b, sidecars: map[string]bool{}}
}

func (a *accessResolver) listedSidecar(key string)   { a.sidecars[key] = true }
func (a *accessResolver) listedPrefix(prefix string) { a.complete = append(a.complete, prefix) }

// resolve sets each item's Groups, or its AccessErr when a sidecar on its way cannot be read.
func (a *accessResolver) resolve(ctx context.Context, items []indexer.Item) {
	if !a.b.sidecars {
		for i := range items {
			items[i].Groups = a.b.rules.GroupsFor(items[i].ExternalID)
		}
		return
	}
	r := sidecar.NewResolver(a.read)
	for i := range items {
		g, err := r.GroupsFor(ctx, items[i].ExternalID)
		switch {
		case err != nil:
			items[i].AccessErr = err
		case g != nil:
			items[i].Groups = g
		default:
			items[i].Groups = a.b.rules.GroupsFor(items[i].ExternalID)
		}
	}
}

// read implements sidecar.ReadFunc over the bucket.
func (a *accessResolver) read(ctx context.Context, dir, name string) ([]byte, bool, error) {
	key := name
	if dir != "." {
		key = dir + "/" + name
	}
	listed := a.sidecars[key]
	if !listed && a.listedInFull(key) {
		return nil, false, nil
	}
	obj, err := a.b.client.GetObject(ctx, a.b.bucket, key, minio.GetObjectOptions{})
	if err == nil {
		defer obj.Close()
		var data []byte
		data, err = io.ReadAll(io.LimitReader(obj, maxSidecarBytes+1))
		if err == nil && len(data) > maxSidecarBytes {
			err = fmt.Errorf("larger than %d bytes", maxSidecarBytes)
		}
		if err == nil {
			return data, true, nil
		}
	}
	if !listed && minio.ToErrorResponse(err).Code == "NoSuchKey" {
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("get s3://%s/%s: %w", a.b.bucket, key, err)
}

// listedInFull reports whether key lies under a prefix the listing read to its end, so that its
// absence from the listing means it does not exist.
func (a *accessResolver) listedInFull(key string) bool {
	for _, p := range a.complete {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}
