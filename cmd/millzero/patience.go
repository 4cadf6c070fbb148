package main

import (
	"flag"
	"fmt"
	"strings"
	"time"
)

// patienceFlag is --store-patience: how long a store operation is retried
// while the run's store does not answer, a duration or "forever".
type patienceFlag struct {
	d   time.Duration // < 0: forever
	set bool
}

func (p *patienceFlag) String() string {
	if p == nil {
		return ""
	}
	if p.d < 0 {
		return "forever"
	}
	return p.d.String()
}

func (p *patienceFlag) Set(s string) error {
	if strings.EqualFold(s, "forever") {
		p.d, p.set = -1, true
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("want a duration above 0 (30s, 10m, 2h) or forever, not %q", s)
	}
	p.d, p.set = d, true
	return nil
}

// storePatienceFlag defines --store-patience with the default def (< 0:
// forever) and what the default means in words.
func storePatienceFlag(fs *flag.FlagSet, def time.Duration, defWords string) *patienceFlag {
	p := &patienceFlag{d: def}
	fs.Var(p, "store-patience", "how long to retry while the run's store does not answer (a duration such as 30s, 10m, or forever), "+
		"saying every 30 s what it waits for (default "+defWords+")")
	return p
}
