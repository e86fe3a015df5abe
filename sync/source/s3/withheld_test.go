package s3_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/source/s3"
	"github.com/citahq/cita/sync/source/sidecar"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// fakeBucket is a loopback S3 (gofakes3) holding one bucket, "docs".
type fakeBucket struct {
	endpoint string
	admin    *minio.Client
	fault    *faultyS3
}

func newFakeBucket(t *testing.T) *fakeBucket {
	t.Helper()
	fault := &faultyS3{next: gofakes3.New(s3mem.New()).Server()}
	srv := httptest.NewServer(fault)
	t.Cleanup(srv.Close)
	endpoint := strings.TrimPrefix(srv.URL, "http://")
	admin, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4("key", "secret", ""), BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.MakeBucket(context.Background(), "docs", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	return &fakeBucket{endpoint: endpoint, admin: admin, fault: fault}
}

func (b *fakeBucket) put(t *testing.T, key, body string) {
	t.Helper()
	if _, err := b.admin.PutObject(context.Background(), "docs", key, bytes.NewReader([]byte(body)), int64(len(body)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
}

// source returns the bucket as a source named "bucket"; edit adjusts its configuration.
func (b *fakeBucket) source(t *testing.T, edit func(*config.SourceConfig)) syncrun.Source {
	t.Helper()
	cfg := config.SourceConfig{Name: "bucket", Type: "s3",
		Access: config.AccessRules{DefaultGroups: []string{"everyone"}},
		S3: config.S3Source{Endpoint: b.endpoint, Bucket: "docs", AccessKeyID: "key", SecretAccessKey: "secret",
			PathStyle: true, Insecure: true}}
	if edit != nil {
		edit(&cfg)
	}
	conn, err := s3.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return syncrun.Source{Name: "bucket", Connector: conn}
}

// TestBucketUnresolvableAccessIsWithheld: objects whose sidecar no longer parses, or cannot be
// fetched, are withheld from every search path at once and come back without re-embedding. The
// sidecar sits above the configured prefix, so it is fetched rather than listed.
func TestBucketUnresolvableAccessIsWithheld(t *testing.T) {
	t.Parallel()
	b := newFakeBucket(t)
	b.put(t, "hr/"+sidecar.Name, "default_groups: [hr]\n")
	b.put(t, "hr/2026/nomina.txt", "La nómina de marzo usa el código llama.\n")
	b.put(t, "public/guia.md", "# Guía\n\nEl proceso de compras usa la plataforma jaguar.\n")
	src := b.source(t, func(c *config.SourceConfig) {
		c.S3.Prefixes, c.S3.Sidecars = []string{"hr/2026/", "public/"}, true
	})
	ix := synctest.New(t)
	ix.MustRun(t, src, syncrun.RunOptions{})
	docs := ix.Docs(t, "bucket")
	if !slices.Equal(docs["hr/2026/nomina.txt"].Groups, []string{"hr"}) || !slices.Equal(docs["public/guia.md"].Groups, []string{"everyone"}) {
		t.Fatalf("groups from the sidecar and the rules: %v / %v", docs["hr/2026/nomina.txt"].Groups, docs["public/guia.md"].Groups)
	}
	const query = "nómina código llama"
	hr := rag.MustScope("hr")
	doc := docs["hr/2026/nomina.txt"]
	key := ix.CacheAnswerCiting(t, query, hr, doc.ID)

	for _, breakage := range []struct {
		name    string
		apply   func()
		restore func()
		reason  string
	}{
		{"unparseable", func() { b.put(t, "hr/"+sidecar.Name, "default_groups: [hr\n") },
			func() { b.put(t, "hr/"+sidecar.Name, "default_groups: [hr]\n") }, "hr/.cita-access.yaml"},
		{"unreadable", func() { b.fault.failGet = "hr/" + sidecar.Name }, func() { b.fault.failGet = "" }, "internal error"},
	} {
		breakage.apply()
		res := ix.MustRun(t, src, syncrun.RunOptions{})
		if res.Run.Withheld != 1 || res.Withheld[0].ExternalID != "hr/2026/nomina.txt" || !strings.Contains(res.Withheld[0].Reason, breakage.reason) {
			t.Fatalf("%s sidecar: %+v, withheld %v", breakage.name, res.Run, res.Withheld)
		}
		for _, scope := range []rag.Scope{hr, rag.MustScope("everyone")} {
			if via := ix.VisibleVia(t, query, scope, doc.ID); len(via) > 0 {
				t.Errorf("%s sidecar: the object still reaches %v via %v", breakage.name, scope.Groups(), via)
			}
		}
		if ix.CachedAnswer(t, key) {
			t.Errorf("%s sidecar: a cached answer citing the object is still served", breakage.name)
		}
		if guia := ix.Docs(t, "bucket")["public/guia.md"]; len(ix.VisibleVia(t, "plataforma jaguar", rag.MustScope("everyone"), guia.ID)) == 0 {
			t.Errorf("%s sidecar: an object outside the sidecar's prefix was hidden too", breakage.name)
		}
		texts := ix.Embedder.Texts()
		breakage.restore()
		if res := ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Withheld != 0 || res.Run.ACLOnly != 1 {
			t.Fatalf("%s sidecar repaired: %+v", breakage.name, res.Run)
		}
		if n := ix.Embedder.Texts() - texts; n != 0 {
			t.Errorf("%s sidecar repaired: %d texts re-embedded", breakage.name, n)
		}
		if via := ix.VisibleVia(t, query, hr, doc.ID); len(via) != 4 {
			t.Fatalf("%s sidecar repaired: hr reaches the object only via %v", breakage.name, via)
		}
	}
}
