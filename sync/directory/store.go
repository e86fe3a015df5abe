package directory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/rag"
)

// Store is the stored snapshot of the directory (tables directory_members and directory_state
// of migration 0014). It implements bot.Directory. Construct it with NewStore.
type Store struct {
	pool   *pgxpool.Pool
	maxAge time.Duration
}

// NewStore returns the snapshot store on pool; memberships read more than maxAge ago count for
// nothing (GroupsOf).
func NewStore(pool *pgxpool.Pool, maxAge time.Duration) *Store {
	return &Store{pool: pool, maxAge: maxAge}
}

// groupsOfSQL walks up from an address ($1) through the groups it belongs to, directly or as a
// member of a member group, while the last complete read is younger than $2.
const groupsOfSQL = `
WITH RECURSIVE up(grp) AS (
	SELECT group_email FROM directory_members WHERE member_email = $1
	UNION
	SELECT m.group_email FROM directory_members m JOIN up ON m.member_email = up.grp AND m.member_is_group
)
SELECT grp FROM up
WHERE EXISTS (SELECT 1 FROM directory_state WHERE id = 1 AND refreshed_at > now() - $2::interval)
ORDER BY grp`

// GroupsOf implements bot.Directory: the groups email belongs to, directly or through nested
// groups, by their addresses. It returns none for an unknown or invalid address and when the
// last complete read is older than the store's maxAge (failing refreshes narrow access rather
// than keep stale memberships), and an error when the database cannot be read.
func (s *Store) GroupsOf(ctx context.Context, email string) ([]string, error) {
	key, err := rag.EmailGroup(email)
	if err != nil {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, groupsOfSQL, key, s.maxAge)
	if err != nil {
		return nil, fmt.Errorf("look up directory groups: %w", err)
	}
	groups, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("look up directory groups: %w", err)
	}
	return groups, nil
}

// Replace stores snap in place of the previous snapshot, in one transaction (readers see one
// or the other, never a mix), and records the read as complete. It returns an error when the
// snapshot cannot be written; the previous one then stays.
func (s *Store) Replace(ctx context.Context, snap Snapshot) error {
	members := slices.Clone(snap.Members)
	slices.SortFunc(members, func(a, b Membership) int {
		if c := cmp.Compare(a.Member, b.Member); c != 0 {
			return c
		}
		return cmp.Compare(a.Group, b.Group)
	})
	members = slices.CompactFunc(members, func(a, b Membership) bool { return a.Member == b.Member && a.Group == b.Group })
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM directory_members`); err != nil {
			return err
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"directory_members"}, []string{"group_email", "member_email", "member_is_group"},
			pgx.CopyFromSlice(len(members), func(i int) ([]any, error) {
				return []any{members[i].Group, members[i].Member, members[i].MemberIsGroup}, nil
			}))
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE directory_state SET refreshed_at = now(), attempted_at = now(), claimed_until = NULL,
			groups = $1, members = $2, last_error = '' WHERE id = 1`, snap.Groups, len(members))
		return err
	})
	if err != nil {
		return fmt.Errorf("store directory snapshot: %w", err)
	}
	return nil
}

// claim takes the right to read the directory now: when the last complete read is older than
// every, the last attempt older than retry, and no other process holds an unexpired claim. The
// claim lasts lease (a process that dies while reading holds it no longer). It reports whether
// the claim was taken, or an error when the database cannot be written.
func (s *Store) claim(ctx context.Context, every, retry, lease time.Duration) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE directory_state SET claimed_until = now() + $3::interval, attempted_at = now()
		WHERE id = 1
		  AND (refreshed_at IS NULL OR refreshed_at <= now() - $1::interval)
		  AND (attempted_at IS NULL OR attempted_at <= now() - $2::interval OR attempted_at <= refreshed_at)
		  AND (claimed_until IS NULL OR claimed_until < now())`, every, retry, lease)
	if err != nil {
		return false, fmt.Errorf("claim the directory refresh: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// fail records a read that did not complete and releases the claim; the snapshot stays.
func (s *Store) fail(ctx context.Context, cause error) error {
	if _, err := s.pool.Exec(ctx, `UPDATE directory_state SET claimed_until = NULL, last_error = $1 WHERE id = 1`, cause.Error()); err != nil {
		return fmt.Errorf("record the failed directory refresh: %w", err)
	}
	return nil
}

// State is what the last reads of the directory did.
type State struct {
	RefreshedAt    time.Time // the last complete read; zero when none
	AttemptedAt    time.Time
	Groups, Member int
	LastError      string
}

// State returns the refresh state. It returns an error when the database cannot be read.
func (s *Store) State(ctx context.Context) (State, error) {
	var st State
	var refreshed, attempted *time.Time
	err := s.pool.QueryRow(ctx, `SELECT refreshed_at, attempted_at, groups, members, last_error FROM directory_state WHERE id = 1`).
		Scan(&refreshed, &attempted, &st.Groups, &st.Member, &st.LastError)
	if err != nil {
		return State{}, fmt.Errorf("read the directory state: %w", err)
	}
	if refreshed != nil {
		st.RefreshedAt = *refreshed
	}
	if attempted != nil {
		st.AttemptedAt = *attempted
	}
	return st, nil
}
