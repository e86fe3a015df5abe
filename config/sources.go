package config

// SourceConfig is one synced source (see README, "Sync").
type SourceConfig struct{}
