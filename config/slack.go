package config

// SlackConfig configures the Slack adapter (see README, "Slack").
type SlackConfig struct{}
