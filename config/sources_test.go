package config

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateSources(t *testing.T) {
	t.Parallel()
	good := SourceConfig{Name: "share", Type: "folder", Schedule: "0 3 * * *", TimeZone: "Europe/Madrid", Folder: FolderSource{Path: "/mnt/share"}}
	for _, tc := range []struct {
		name    string
		sources []SourceConfig
		want    []string // substrings of the error; none: valid
	}{
		{"valid", []SourceConfig{good, {Name: "b", Type: "s3", S3: S3Source{Endpoint: "minio:9000", Bucket: "docs"}},
			{Name: "d", Type: "gdrive", GDrive: GDriveSource{TokenFile: "t.json", SheetsFormat: "csv"}}}, nil},
		{"duplicate name", []SourceConfig{good, good}, []string{"sources[1] (share).name", "used twice"}},
		{"bad name", []SourceConfig{{Name: "my share", Type: "folder", Folder: FolderSource{Path: "/x"}}}, []string{".name", "letters, digits"}},
		{"unknown type", []SourceConfig{{Name: "x", Type: "ftp"}}, []string{"sources[0] (x).type", "folder, gdrive or s3"}},
		{"folder without path", []SourceConfig{{Name: "x", Type: "folder"}}, []string{"folder.path"}},
		{"bad schedule", []SourceConfig{{Name: "x", Type: "folder", Folder: FolderSource{Path: "/x"}, Schedule: "every hour"}}, []string{".schedule", "@every 1h"}},
		{"bad zone", []SourceConfig{{Name: "x", Type: "folder", Folder: FolderSource{Path: "/x"}, Schedule: "@daily", TimeZone: "Nowhere/Land"}}, []string{"time_zone", "IANA"}},
		{"gdrive credentials", []SourceConfig{{Name: "x", Type: "gdrive", GDrive: GDriveSource{CredentialsFile: "a", TokenFile: "b"}}}, []string{"gdrive: give exactly one"}},
		{"gdrive format", []SourceConfig{{Name: "x", Type: "gdrive", GDrive: GDriveSource{TokenFile: "b", DocsFormat: "pdf"}}}, []string{"gdrive.docs_format", "markdown or docx"}},
		{"s3 scheme", []SourceConfig{{Name: "x", Type: "s3", S3: S3Source{Endpoint: "https://s3", Bucket: "b"}}}, []string{"s3.endpoint", "without a scheme"}},
		{"s3 bucket", []SourceConfig{{Name: "x", Type: "s3", S3: S3Source{Endpoint: "s3"}}}, []string{"s3.bucket"}},
		{"access rule", []SourceConfig{{Name: "x", Type: "folder", Folder: FolderSource{Path: "/x"}, Access: AccessRules{Rules: []AccessRule{{Match: "hr/**"}}}}}, []string{".access", "groups is empty"}},
		{"delete fraction bounds", []SourceConfig{withFraction(good, 0), withFraction(SourceConfig{Name: "y", Type: "folder", Folder: FolderSource{Path: "/y"}}, 1)}, nil},
		{"delete fraction above 1", []SourceConfig{withFraction(good, 1.5)}, []string{"sources[0] (share).max_delete_fraction", "1.5 is out of range", "from 0 to 1"}},
		{"delete fraction negative", []SourceConfig{withFraction(good, -0.1)}, []string{"max_delete_fraction: -0.1 is out of range"}},
		{"delete fraction NaN", []SourceConfig{withFraction(good, math.NaN())}, []string{"max_delete_fraction: NaN is out of range"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkErr(t, ValidateSources(tc.sources), tc.want...)
		})
	}
}

func withFraction(s SourceConfig, f float64) SourceConfig {
	s.MaxDeleteFraction = &f
	return s
}

func TestMaxDeleteFractionFromYAML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		yaml string
		want float64
	}{
		{"", DefaultMaxDeleteFraction},
		{"    max_delete_fraction: 0\n", 0},
		{"    max_delete_fraction: 0.35\n", 0.35},
	} {
		path := filepath.Join(dir, "cita.yaml")
		text := "sources:\n  - name: share\n    type: folder\n    folder: {path: /mnt/share}\n" + tc.yaml
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Sources[0].MaxDeleteFraction; got == nil || *got != tc.want {
			t.Errorf("%q: max_delete_fraction %v, want %v", tc.yaml, got, tc.want)
		}
	}
	path := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(path, []byte("sources:\n  - name: share\n    type: folder\n    folder: {path: /mnt/share}\n    max_delete_fraction: 20\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "sources[0] (share).max_delete_fraction: 20 is out of range") {
		t.Errorf("max_delete_fraction 20 (a percentage, not a fraction): %v", err)
	}
}

func TestCronSpecAddsTimeZone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ schedule, zone, want string }{
		{"0 3 * * *", "UTC", "CRON_TZ=UTC 0 3 * * *"},
		{"CRON_TZ=Asia/Tokyo 0 3 * * *", "UTC", "CRON_TZ=Asia/Tokyo 0 3 * * *"},
		{"@hourly", "", "@hourly"},
		{"", "UTC", ""},
	} {
		if got := (SourceConfig{Schedule: tc.schedule, TimeZone: tc.zone}).CronSpec(); got != tc.want {
			t.Errorf("CronSpec(%q, %q) = %q, want %q", tc.schedule, tc.zone, got, tc.want)
		}
	}
}
