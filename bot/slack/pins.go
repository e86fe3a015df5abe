package slack

import (
	"context"
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/rag"
)

// resolvePins turns configured channel pins (by id, checked with conversations.info, or by
// "#name" looked up with conversations.list) into scopes by channel id. An id or a name that
// matches no channel the bot can see is an error: starting without the pin would answer there
// with wider groups than configured (a mistyped id would never match an event's channel).
func resolvePins(ctx context.Context, api *slack.Client, pins map[string][]string) (map[string]rag.Scope, error) {
	out := map[string]rag.Scope{}
	byName := map[string]string{} // lower-cased name -> the configured key
	for key, groups := range pins {
		scope, err := rag.NewScope(groups...)
		if err != nil {
			return nil, fmt.Errorf("slack.channel_groups[%q]: list at least one group", key)
		}
		if name, ok := strings.CutPrefix(strings.TrimSpace(key), "#"); ok {
			byName[strings.ToLower(name)] = key
			continue
		}
		id := strings.TrimSpace(key)
		if err := checkPinnedID(ctx, api, key, id); err != nil {
			return nil, err
		}
		out[id] = scope
	}
	if len(byName) == 0 {
		return out, nil
	}
	cursor := ""
	for {
		var page []slack.Channel
		err := withRetry(ctx, func() (err error) {
			page, cursor, err = api.GetConversationsContext(ctx, &slack.GetConversationsParameters{Cursor: cursor, Limit: 1000,
				ExcludeArchived: true, Types: []string{"public_channel", "private_channel"}})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("slack.channel_groups: look up channel names with conversations.list (needs channels:read and groups:read): %w", err)
		}
		for _, ch := range page {
			if key, ok := byName[strings.ToLower(ch.Name)]; ok {
				out[ch.ID] = rag.MustScope(pins[key]...)
				delete(byName, strings.ToLower(ch.Name))
			}
		}
		if cursor == "" {
			break
		}
	}
	for _, key := range byName {
		return nil, fmt.Errorf("slack.channel_groups[%q]: no channel of that name is visible to the bot; invite the bot (private channels), fix the name, or use the channel id", key)
	}
	return out, nil
}

// checkPinnedID returns an error naming the pin key unless Slack knows channel id and the bot
// can see it.
func checkPinnedID(ctx context.Context, api *slack.Client, key, id string) error {
	var info *slack.Channel
	err := withRetry(ctx, func() (err error) {
		info, err = api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: id})
		return err
	})
	if err != nil {
		return fmt.Errorf("slack.channel_groups[%q]: no channel with that id is visible to the bot (conversations.info: %w); "+
			"copy the id from the channel's details (ids are upper case, e.g. C0123ABCD), invite the bot to a private channel, or use \"#name\"", key, err)
	}
	if info.ID != "" && info.ID != id {
		return fmt.Errorf("slack.channel_groups[%q]: Slack knows this channel as %s; use that id", key, info.ID)
	}
	return nil
}
