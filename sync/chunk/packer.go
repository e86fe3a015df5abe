package chunk

import "strings"

// packer joins a section's segments into piece contents: up to target tokens each (one oversized
// segment alone may reach budget), with the tail of each prose piece repeated at the start of the
// next.
type packer struct {
	target, budget int
	ratio          float64

	out    []string
	b      strings.Builder
	tokens int  // upper bound of CountTokens(b.String()); exact when every sep is whitespace
	own    bool // the current piece holds more than the overlap it started with
	floor  int  // offset in b just after the last table or code segment
	tail   bool // the last segment added was prose, so the next piece may overlap it
}

func (p *packer) add(s segment) {
	if s.standalone {
		p.flush()
		p.out = append(p.out, s.text)
		p.tail = false
		return
	}
	if p.own && p.tokens+s.tokens > p.target {
		prev, prevTokens, floor, tail := p.b.String(), p.tokens, p.floor, p.tail
		p.flush()
		if tail {
			if ov := overlapTail(prev, floor, prevTokens, p.ratio); ov != "" {
				if n := CountTokens(ov); n+s.tokens <= p.budget {
					p.b.WriteString(ov)
					p.tokens = n
				}
			}
		}
	}
	if p.b.Len() > 0 {
		p.b.WriteString(s.sep)
	}
	p.b.WriteString(s.text)
	p.tokens += s.tokens
	p.own = true
	p.tail = !s.barrier
	if s.barrier {
		p.floor = p.b.Len()
	}
}

// flush ends the current piece, keeping it only when it holds content of its own.
func (p *packer) flush() {
	if p.own {
		p.out = append(p.out, p.b.String())
	}
	p.b.Reset()
	p.tokens, p.own, p.floor, p.tail = 0, false, 0, false
}
