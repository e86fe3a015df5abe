package metrics

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/citahq/cita/bot"
)

// WatchQueue exports the answer queue: questions waiting, answers running, and the sizes.
func (m *Metrics) WatchQueue(q *bot.Queue) {
	gauge := func(name, help string, value func(bot.QueueStat) int) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help},
			func() float64 { return float64(value(q.Stat())) })
	}
	m.reg.MustRegister(
		gauge("answer_queue_depth", "Questions waiting in line for an answer worker.", func(s bot.QueueStat) int { return s.Waiting }),
		gauge("answer_workers_busy", "Answer workers answering now.", func(s bot.QueueStat) int { return s.Running }),
		gauge("answer_workers", "Answer workers configured (server.workers).", func(s bot.QueueStat) int { return s.Workers }),
		gauge("answer_queue_capacity", "Places in the answer line (server.queue_size).", func(s bot.QueueStat) int { return s.Size }),
	)
}

// WatchPool exports the database pool's connections: acquired, idle and total.
func (m *Metrics) WatchPool(pool *pgxpool.Pool) {
	gauge := func(name, help string, value func(*pgxpool.Stat) int32) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help},
			func() float64 { return float64(value(pool.Stat())) })
	}
	m.reg.MustRegister(
		gauge("db_connections_acquired", "Database connections in use.", (*pgxpool.Stat).AcquiredConns),
		gauge("db_connections_idle", "Idle database connections in the pool.", (*pgxpool.Stat).IdleConns),
		gauge("db_connections_max", "The pool's maximum connections.", (*pgxpool.Stat).MaxConns),
	)
}
