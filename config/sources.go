package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// SourceConfig is one synced source (see docs/sync.md): a name, a connector type with its
// settings, a cron schedule and the rules that give its documents access groups.
type SourceConfig struct {
	// Name identifies the source in the index, the run history and `cita sync --source`.
	Name string `yaml:"name"`
	// Type is "folder", "gdrive" or "s3".
	Type string `yaml:"type"`
	// Schedule is a cron expression ("0 */2 * * *", "@every 30m", "@daily"); empty means the
	// source syncs only when `cita sync` runs. A "CRON_TZ=Europe/Madrid " prefix or TimeZone
	// sets the zone; the default is the server's local time.
	Schedule string `yaml:"schedule"`
	TimeZone string `yaml:"time_zone"`
	// Access maps paths (folder) or object keys (s3) to groups. Google Drive takes its groups
	// from each file's permissions instead.
	Access AccessRules `yaml:"access"`
	// Validity marks documents by path as superseded or valid for a window ("archive/**"); see
	// docs/validity.md.
	Validity ValidityRules `yaml:"validity"`
	// MaxDeleteFraction is the share of the source's documents one pass may delete (default
	// 0.2, from 0 to 1). A pass that would delete more, beyond 3 documents, or all of the
	// source's documents whatever their number, deletes nothing and asks for
	// `cita sync --source NAME --allow-mass-delete` (see docs/sync.md).
	MaxDeleteFraction *float64 `yaml:"max_delete_fraction"`

	Folder FolderSource `yaml:"folder"`
	GDrive GDriveSource `yaml:"gdrive"`
	S3     S3Source     `yaml:"s3"`
}

// FolderSource is a local or mounted folder (SMB and NFS mounts look like folders).
type FolderSource struct {
	Path string `yaml:"path"`
	// URLBase, when set, makes citations link to URLBase + the file's relative path.
	URLBase string `yaml:"url_base"`
	// Sidecars enables `.cita-access.yaml` files: one in a folder gives the groups of its subtree.
	// It enables `.cita-validity.yaml` files too (docs/validity.md).
	Sidecars bool `yaml:"sidecars"`
	// Watch makes `cita serve` watch the tree (fsnotify) and run a pass within seconds of a
	// change, in addition to the schedule, which stays the safety net.
	Watch bool `yaml:"watch"`
	// WatchDebounce is how long the watcher waits after the last change of a burst before the
	// pass (default 300ms).
	WatchDebounce time.Duration `yaml:"watch_debounce"`
}

// GDriveSource is Google Drive through the Drive API v3.
type GDriveSource struct {
	// CredentialsFile is a service-account key (JSON). Give it or TokenFile.
	CredentialsFile string `yaml:"credentials_file"`
	// TokenFile is an OAuth "authorized_user" JSON file (client id, secret and refresh token).
	TokenFile string `yaml:"token_file"`
	// Subject is the user a service account impersonates (domain-wide delegation); optional.
	Subject string `yaml:"subject"`
	// DriveID restricts the sync to one shared drive; empty syncs everything the account sees.
	DriveID string `yaml:"drive_id"`
	// Export formats for Google files: docs "markdown" (default) or "docx"; sheets "xlsx"
	// (default) or "csv"; slides "pptx" (default) or "text".
	DocsFormat   string `yaml:"docs_format"`
	SheetsFormat string `yaml:"sheets_format"`
	SlidesFormat string `yaml:"slides_format"`
	// AnyoneGroup is the group given to files shared with "anyone with the link"; empty ignores
	// such sharing (the file is then readable only through its other permissions).
	AnyoneGroup string `yaml:"anyone_group"`
	// GroupAliases renames permission groups: {"eng@example.com": "engineering"}. User and group
	// emails become groups as they are (lower-cased); a domain permission becomes "domain:<domain>".
	GroupAliases map[string]string `yaml:"group_aliases"`
	// FullEvery forces a full listing when the last one is older (default 24h); runs in between
	// use the changes API.
	FullEvery time.Duration `yaml:"full_every"`
	// Endpoint overrides the API base URL (proxies, tests).
	Endpoint string `yaml:"endpoint"`
	// Push registers Drive push notifications (changes.watch) so a change triggers an
	// incremental pass within seconds; the schedule stays the safety net.
	Push GDrivePush `yaml:"push"`
}

// GDrivePush is a Drive source's push-notification channel (docs/sync.md, "Changes in seconds").
type GDrivePush struct {
	// Address is the public HTTPS URL of `cita serve`'s POST /hooks/gdrive
	// ("https://cita.example.com/hooks/gdrive"); empty disables push.
	Address string `yaml:"address"`
	// TTL is the life asked for each channel (default 24h; Drive caps it at a week).
	TTL time.Duration `yaml:"ttl"`
	// RenewBefore is how long before expiry a channel is replaced (default 1h).
	RenewBefore time.Duration `yaml:"renew_before"`
}

// S3Source is a bucket of any S3-compatible store (AWS, MinIO, R2).
type S3Source struct {
	Endpoint string `yaml:"endpoint"` // host[:port], e.g. s3.amazonaws.com, minio.local:9000
	Region   string `yaml:"region"`
	Bucket   string `yaml:"bucket"`
	// Prefixes limits the sync to keys under these prefixes; empty syncs the whole bucket.
	Prefixes []string `yaml:"prefixes"`
	// Exclude skips keys matching these globs (same syntax as access rules).
	Exclude         []string `yaml:"exclude"`
	AccessKeyID     string   `yaml:"access_key_id"`     // use ${S3_ACCESS_KEY_ID}
	SecretAccessKey string   `yaml:"secret_access_key"` // use ${S3_SECRET_ACCESS_KEY}
	PathStyle       bool     `yaml:"path_style"`        // MinIO and most self-hosted stores
	Insecure        bool     `yaml:"insecure"`          // plain HTTP
	// URLBase, when set, makes citations link to URLBase + the object key.
	URLBase string `yaml:"url_base"`
	// Sidecars enables `.cita-access.yaml` objects: one under a key prefix ("hr/") gives the
	// groups of the keys below it, as in a folder.
	Sidecars bool `yaml:"sidecars"`
}

// DefaultMaxDeleteFraction is max_delete_fraction when a source does not set it (the indexer
// holds the same default for callers that build sources without a configuration).
const DefaultMaxDeleteFraction = 0.2

var sourceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// CronSpec returns the schedule with the time zone applied, as robfig/cron parses it, or "" when
// the source has no schedule.
func (s SourceConfig) CronSpec() string {
	spec := strings.TrimSpace(s.Schedule)
	if spec == "" || s.TimeZone == "" || strings.HasPrefix(spec, "CRON_TZ=") || strings.HasPrefix(spec, "TZ=") {
		return spec
	}
	return "CRON_TZ=" + s.TimeZone + " " + spec
}

// ParseSchedule returns the source's parsed schedule, nil when it has none, or an error naming
// the field.
func (s SourceConfig) ParseSchedule() (cron.Schedule, error) {
	spec := s.CronSpec()
	if spec == "" {
		return nil, nil
	}
	if s.TimeZone != "" {
		if _, err := time.LoadLocation(s.TimeZone); err != nil {
			return nil, fmt.Errorf("time_zone %q: %w; use an IANA name such as Europe/Madrid", s.TimeZone, err)
		}
	}
	sched, err := cronParser.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %w; use five cron fields (\"0 */2 * * *\") or @every 1h", s.Schedule, err)
	}
	return sched, nil
}

// ValidateSources checks every source and compiles its access rules. The error names each
// offending field (sources[i].field) and the fix; all problems are reported at once.
func ValidateSources(sources []SourceConfig) error {
	var errs []error
	seen := map[string]bool{}
	for i := range sources {
		s := &sources[i]
		at := fmt.Sprintf("sources[%d]", i)
		if s.Name != "" {
			at = fmt.Sprintf("sources[%d] (%s)", i, s.Name)
		}
		bad := func(field, format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s.%s: "+format, append([]any{at, field}, args...)...))
		}
		switch {
		case !sourceName.MatchString(s.Name):
			bad("name", "%q: give a name of letters, digits, '.', '_' or '-' (e.g. drive-hr)", s.Name)
		case seen[s.Name]:
			bad("name", "%q is used twice; give every source its own name", s.Name)
		}
		seen[s.Name] = true
		if _, err := s.ParseSchedule(); err != nil {
			bad("schedule", "%v", err)
		}
		if err := s.Access.Compile(); err != nil {
			bad("access", "%v", err)
		}
		if err := s.Validity.Compile(); err != nil {
			bad("validity", "%v", err)
		}
		if f := s.MaxDeleteFraction; f != nil && !(*f >= 0 && *f <= 1) { // NaN fails both
			bad("max_delete_fraction", "%v is out of range; give a fraction from 0 to 1 (default %g: a pass may delete a fifth of the source)", *f, DefaultMaxDeleteFraction)
		}
		switch s.Type {
		case "folder":
			if s.Folder.Path == "" {
				bad("folder.path", "required for type folder; give the folder or mount point")
			}
		case "gdrive":
			g := s.GDrive
			if a := g.Push.Address; a != "" && !strings.HasPrefix(a, "https://") && !strings.HasPrefix(a, "http://localhost") && !strings.HasPrefix(a, "http://127.0.0.1") {
				bad("gdrive.push.address", "%q: Drive delivers notifications to HTTPS addresses only; give https://<your host>/hooks/gdrive", a)
			}
			if (g.CredentialsFile == "") == (g.TokenFile == "") {
				bad("gdrive", "give exactly one of credentials_file (service-account key) or token_file (OAuth token)")
			}
			checkOneOf(bad, "gdrive.docs_format", g.DocsFormat, "markdown", "docx")
			checkOneOf(bad, "gdrive.sheets_format", g.SheetsFormat, "xlsx", "csv")
			checkOneOf(bad, "gdrive.slides_format", g.SlidesFormat, "pptx", "text")
			if g.FullEvery < 0 {
				bad("gdrive.full_every", "must be positive (e.g. 24h)")
			}
			if g.AnyoneGroup != "" {
				if err := checkGroup(g.AnyoneGroup); err != nil {
					bad("gdrive.anyone_group", "%v", err)
				}
			}
			for from, to := range g.GroupAliases {
				for _, name := range []string{from, to} {
					if err := checkGroup(name); err != nil {
						bad(fmt.Sprintf("gdrive.group_aliases[%q]", from), "%v", err)
						break
					}
				}
			}
		case "s3":
			if s.S3.Endpoint == "" || strings.Contains(s.S3.Endpoint, "://") {
				bad("s3.endpoint", "%q: give host[:port] without a scheme (e.g. s3.amazonaws.com); set insecure: true for plain HTTP", s.S3.Endpoint)
			}
			if s.S3.Bucket == "" {
				bad("s3.bucket", "required for type s3")
			}
			for _, g := range s.S3.Exclude {
				if _, err := globRegexp(g); err != nil {
					bad("s3.exclude", "%q: %v", g, err)
				}
			}
		default:
			bad("type", "%q is not known; use folder, gdrive or s3", s.Type)
		}
	}
	return errors.Join(errs...)
}

func checkOneOf(bad func(field, format string, args ...any), field, value string, allowed ...string) {
	if value == "" {
		return
	}
	for _, a := range allowed {
		if value == a {
			return
		}
	}
	bad(field, "%q is not known; use %s", value, strings.Join(allowed, " or "))
}

// MatchGlob reports whether a slash-separated path matches a glob in access-rule syntax
// ("**" spans folders). An invalid glob matches nothing.
func MatchGlob(glob, path string) bool {
	re, err := globRegexp(glob)
	return err == nil && re.MatchString(path)
}
