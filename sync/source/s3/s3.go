// Package s3 is the connector for a bucket of any S3-compatible store (AWS S3, MinIO, R2),
// through minio-go: ETag fingerprints, prefix filters, and access groups from the source's
// rules matched against object keys, or from .cita-access.yaml sidecar objects.
package s3

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/extract"
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/source/sidecar"
)

// maxObjectBytes bounds one download; the extractors have their own, lower, limits.
const maxObjectBytes = 1 << 30

// Bucket lists one bucket. Construct it with New.
type Bucket struct {
	client   *minio.Client
	bucket   string
	prefixes []string
	exclude  []string
	rules    config.AccessRules
	validity config.ValidityRules
	sidecars bool
	urlBase  string
	logger   *slog.Logger
}

// New returns the connector of cfg.S3. Without access keys the requests are anonymous. It
// returns an error when the endpoint or the access rules are invalid.
func New(cfg config.SourceConfig, logger *slog.Logger) (*Bucket, error) {
	c := cfg.S3
	rules := cfg.Access
	if err := rules.Compile(); err != nil {
		return nil, fmt.Errorf("source %s access: %w", cfg.Name, err)
	}
	lookup := minio.BucketLookupAuto
	if c.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(c.Endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(c.AccessKeyID, c.SecretAccessKey, ""),
		Secure:       !c.Insecure,
		Region:       c.Region,
		BucketLookup: lookup,
	})
	if err != nil {
		return nil, fmt.Errorf("source %s s3.endpoint %q: %w", cfg.Name, c.Endpoint, err)
	}
	prefixes := c.Prefixes
	if len(prefixes) == 0 {
		prefixes = []string{""}
	}
	validity := cfg.Validity
	if err := validity.Compile(); err != nil {
		return nil, fmt.Errorf("source %s validity: %w", cfg.Name, err)
	}
	return &Bucket{client: client, bucket: c.Bucket, prefixes: prefixes, exclude: c.Exclude, rules: rules, validity: validity,
		sidecars: c.Sidecars, urlBase: c.URLBase, logger: logger}, nil
}

// List returns every supported object under the prefixes, with its access groups. On a listing
// error it returns the objects listed so far, complete false, and the error. An object whose
// sidecar cannot be read or parsed carries the error as its AccessErr (the indexer withholds it).
func (b *Bucket) List(ctx context.Context) ([]indexer.Item, bool, error) {
	var items []indexer.Item
	seen := map[string]bool{}
	access := newAccessResolver(b)
	for _, prefix := range b.prefixes {
		for obj := range b.client.ListObjects(ctx, b.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
			if obj.Err != nil {
				access.resolve(ctx, items)
				return items, false, fmt.Errorf("list s3://%s/%s: %w", b.bucket, prefix, obj.Err)
			}
			key := obj.Key
			if b.sidecars && path.Base(key) == sidecar.Name {
				access.listedSidecar(key)
				continue
			}
			if seen[key] || strings.HasSuffix(key, "/") || !extract.Supported(key) || b.excluded(key) {
				continue
			}
			seen[key] = true
			items = append(items, indexer.Item{
				ExternalID:  key,
				Name:        path.Base(key),
				URL:         b.objectURL(key),
				Modified:    obj.LastModified,
				Size:        obj.Size,
				Fingerprint: "etag:" + strings.Trim(obj.ETag, `"`),
				Open:        b.opener(key),
			})
		}
		if err := ctx.Err(); err != nil {
			access.resolve(ctx, items)
			b.markValidity(items)
			return items, false, err
		}
		access.listedPrefix(prefix)
	}
	access.resolve(ctx, items)
	b.markValidity(items)
	return items, true, nil
}

// markValidity gives items the validity the source's rules give their keys ("archive/**").
// Object metadata is not read: a listing does not return it, and a HEAD per object would cost
// a request per document on every pass.
func (b *Bucket) markValidity(items []indexer.Item) {
	for i := range items {
		if m, ok := b.validity.For(items[i].ExternalID); ok {
			items[i].Validity = rag.Validity{From: m.From, Until: m.Until, Superseded: m.Superseded,
				SupersededBy: m.SupersededBy, SupersededOn: m.SupersededOn}
		}
	}
}

func (b *Bucket) excluded(key string) bool {
	for _, g := range b.exclude {
		if config.MatchGlob(g, key) {
			return true
		}
	}
	return false
}

func (b *Bucket) objectURL(key string) string {
	if b.urlBase == "" {
		return ""
	}
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.TrimSuffix(b.urlBase, "/") + "/" + strings.Join(parts, "/")
}

func (b *Bucket) opener(key string) func(ctx context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		obj, err := b.client.GetObject(ctx, b.bucket, key, minio.GetObjectOptions{})
		if err != nil {
			return nil, fmt.Errorf("get s3://%s/%s: %w", b.bucket, key, err)
		}
		defer obj.Close()
		data, err := io.ReadAll(io.LimitReader(obj, maxObjectBytes+1))
		if err != nil {
			return nil, fmt.Errorf("get s3://%s/%s: %w", b.bucket, key, err)
		}
		if len(data) > maxObjectBytes {
			return nil, fmt.Errorf("get s3://%s/%s: larger than %d bytes", b.bucket, key, maxObjectBytes)
		}
		return data, nil
	}
}
