package config

// DiscordConfig configures the Discord adapter (see README, "Discord").
type DiscordConfig struct{}
