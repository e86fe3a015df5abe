// Package gdrive is the Google Drive connector (Drive API v3): full listings with files.list,
// incremental runs with the changes API, Google Docs/Sheets/Slides exported to formats the
// extractors read, and file permissions mapped to access groups.
package gdrive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"time"

	"golang.org/x/oauth2/google"
	"google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/extract"
	"github.com/citahq/cita/sync/indexer"
)

// fileFields are the file fields every listing asks for, permissions included.
const fileFields = "id,name,mimeType,md5Checksum,version,modifiedTime,size,webViewLink,trashed,driveId," +
	"owners(emailAddress),permissionIds,permissions(type,role,emailAddress,domain),properties,appProperties"

// maxDownloadBytes bounds one download; the extractors have their own, lower, limits.
const maxDownloadBytes = 1 << 30

// Drive lists one Google Drive account or shared drive. Construct it with New.
type Drive struct {
	svc     *drive.Service
	driveID string
	formats exportFormats
	groups  groupMapper
	logger  *slog.Logger
}

// New returns the connector of cfg.GDrive, authenticated with its service-account key (with
// Subject for domain-wide delegation) or OAuth "authorized_user" token file. extra options come
// last (tests pass option.WithEndpoint and option.WithHTTPClient). It returns an error when a
// credentials file cannot be read.
func New(ctx context.Context, cfg config.SourceConfig, logger *slog.Logger, extra ...option.ClientOption) (*Drive, error) {
	c := cfg.GDrive
	var opts []option.ClientOption
	switch {
	case c.CredentialsFile != "" && c.Subject != "":
		key, err := os.ReadFile(c.CredentialsFile)
		if err != nil {
			return nil, fmt.Errorf("source %s gdrive.credentials_file: %w", cfg.Name, err)
		}
		jwt, err := google.JWTConfigFromJSON(key, drive.DriveReadonlyScope)
		if err != nil {
			return nil, fmt.Errorf("source %s gdrive.credentials_file: %w", cfg.Name, err)
		}
		jwt.Subject = c.Subject
		opts = append(opts, option.WithTokenSource(jwt.TokenSource(context.WithoutCancel(ctx))))
	case c.CredentialsFile != "":
		opts = append(opts, option.WithAuthCredentialsFile(option.ServiceAccount, c.CredentialsFile), option.WithScopes(drive.DriveReadonlyScope))
	case c.TokenFile != "":
		opts = append(opts, option.WithAuthCredentialsFile(option.AuthorizedUser, c.TokenFile), option.WithScopes(drive.DriveReadonlyScope))
	}
	if c.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(c.Endpoint))
	}
	opts = append(opts, extra...)
	svc, err := drive.NewService(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("source %s: connect to Google Drive: %w", cfg.Name, err)
	}
	return &Drive{
		svc: svc, driveID: c.DriveID, formats: newExportFormats(c),
		groups: groupMapper{anyone: c.AnyoneGroup, aliases: c.GroupAliases}, logger: logger,
	}, nil
}

// List pages through files.list. On an error it returns the files listed so far, complete
// false, and the error; complete is also false when Drive reports an incomplete search.
func (d *Drive) List(ctx context.Context) ([]indexer.Item, bool, error) {
	call := d.svc.Files.List().Context(ctx).Q("trashed = false").PageSize(1000).
		SupportsAllDrives(true).IncludeItemsFromAllDrives(true).
		Fields(googleapi.Field("nextPageToken,incompleteSearch,files(" + fileFields + ")"))
	if d.driveID != "" {
		call = call.Corpora("drive").DriveId(d.driveID)
	} else {
		call = call.Corpora("allDrives")
	}
	var items []indexer.Item
	complete := true
	for page := ""; ; {
		res, err := call.PageToken(page).Do()
		if err != nil {
			return items, false, fmt.Errorf("list files: %w", err)
		}
		if res.IncompleteSearch {
			complete = false
		}
		for _, f := range res.Files {
			it, ok, err := d.item(ctx, f)
			if err != nil {
				return items, false, err
			}
			if ok {
				items = append(items, it)
			}
		}
		if page = res.NextPageToken; page == "" {
			return items, complete, nil
		}
	}
}

// item turns a Drive file into an indexer item; ok is false for files cita does not index. A
// file whose permissions cannot be read or mapped carries the reason as its AccessErr. It
// returns an error only when ctx ends.
func (d *Drive) item(ctx context.Context, f *drive.File) (indexer.Item, bool, error) {
	if f.Trashed {
		return indexer.Item{}, false, nil
	}
	name, export, ok := d.formats.itemName(f.Name, f.MimeType)
	if !ok {
		return indexer.Item{}, false, nil
	}
	it := indexer.Item{
		ExternalID: f.Id,
		Name:       name,
		URL:        f.WebViewLink,
		Size:       f.Size,
	}
	perms := f.Permissions
	var permErr error
	if len(perms) == 0 && (len(f.PermissionIds) > 0 || f.DriveId != "") {
		// Files of shared drives do not carry their permissions in listings.
		perms, permErr = d.permissions(ctx, f.Id)
		if err := ctx.Err(); err != nil {
			return indexer.Item{}, false, err
		}
	}
	if permErr != nil {
		// Unknown permissions withhold this file (readable by nobody until a later pass reads
		// them); the listing goes on.
		it.AccessErr = permErr
	} else {
		it.Groups, it.AccessErr = d.groups.groups(perms)
	}
	if len(f.Owners) > 0 {
		it.Owner = f.Owners[0].EmailAddress
	}
	// Validity set on the file in Drive (custom properties such as valid_until, superseded_by).
	if len(f.Properties)+len(f.AppProperties) > 0 {
		props := map[string]string{}
		maps.Copy(props, f.Properties)
		maps.Copy(props, f.AppProperties)
		it.Validity = extract.ValidityFromFields(props)
	}
	if t, err := time.Parse(time.RFC3339, f.ModifiedTime); err == nil {
		it.Modified = t
	}
	id := f.Id
	if export != nil {
		it.Fingerprint = fmt.Sprintf("v%d:%s", f.Version, export.mime)
		mime := export.mime
		it.Open = func(ctx context.Context) ([]byte, error) { return d.export(ctx, id, mime) }
	} else {
		it.Fingerprint = "md5:" + f.Md5Checksum
		if f.Md5Checksum == "" {
			it.Fingerprint = fmt.Sprintf("v%d", f.Version)
		}
		it.Open = func(ctx context.Context) ([]byte, error) { return d.download(ctx, id) }
	}
	return it, true, nil
}

// permissions lists a file's permissions (shared drives need supportsAllDrives).
func (d *Drive) permissions(ctx context.Context, fileID string) ([]*drive.Permission, error) {
	var out []*drive.Permission
	err := d.svc.Permissions.List(fileID).Context(ctx).SupportsAllDrives(true).
		Fields("nextPageToken,permissions(type,role,emailAddress,domain)").
		Pages(ctx, func(p *drive.PermissionList) error {
			out = append(out, p.Permissions...)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("list permissions of %s: %w", fileID, err)
	}
	return out, nil
}

// ErrExportTooLarge is returned when Drive refuses to export a Google file over its 10 MB limit.
var ErrExportTooLarge = errors.New("the file exceeds Google Drive's 10 MB export limit; split it, or upload it as a .docx/.xlsx/.pptx file instead")

func (d *Drive) export(ctx context.Context, id, mime string) ([]byte, error) {
	res, err := d.svc.Files.Export(id, mime).Context(ctx).Download()
	if err != nil {
		var gerr *googleapi.Error
		if errors.As(err, &gerr) && exportTooLarge(gerr) {
			return nil, fmt.Errorf("export %s as %s: %w", id, mime, ErrExportTooLarge)
		}
		return nil, fmt.Errorf("export %s as %s: %w", id, mime, err)
	}
	return readBody(res, id)
}

func exportTooLarge(e *googleapi.Error) bool {
	for _, item := range e.Errors {
		if item.Reason == "exportSizeLimitExceeded" {
			return true
		}
	}
	return false
}

func (d *Drive) download(ctx context.Context, id string) ([]byte, error) {
	res, err := d.svc.Files.Get(id).Context(ctx).SupportsAllDrives(true).Download()
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", id, err)
	}
	return readBody(res, id)
}

func readBody(res *http.Response, id string) ([]byte, error) {
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxDownloadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", id, err)
	}
	if len(data) > maxDownloadBytes {
		return nil, fmt.Errorf("download %s: larger than %d bytes", id, maxDownloadBytes)
	}
	return data, nil
}
