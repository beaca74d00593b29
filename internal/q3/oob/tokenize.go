package oob

// Tokenize splits a command line the way ioq3 Cmd_TokenizeString does:
// whitespace (bytes <= ' ') separates tokens, "quoted strings" are one
// token (no escapes), "//" ends the line (unless it follows "x:" as in
// "http://"), /* comments */ are skipped. At most MAX_STRING_TOKENS tokens.
func Tokenize(s string) []string {
	var args []string
	i := 0
	n := len(s)
	isComment := func(i int) bool {
		if i+1 < n && s[i] == '/' && s[i+1] == '/' {
			// accept protocol headers such as http:// (ioq3)
			if i < 3 || s[i-1] != ':' || s[i-2] < 'a' || s[i-2] > 'z' {
				return true
			}
		}
		return false
	}
	for len(args) < maxStringTokens {
		for {
			for i < n && s[i] <= ' ' {
				i++
			}
			if i >= n || isComment(i) {
				return args
			}
			if i+1 < n && s[i] == '/' && s[i+1] == '*' {
				for i < n && !(s[i] == '*' && i+1 < n && s[i+1] == '/') {
					i++
				}
				if i >= n {
					return args
				}
				i += 2
				continue
			}
			break
		}
		if s[i] == '"' {
			i++
			j := i
			for j < n && s[j] != '"' {
				j++
			}
			args = append(args, s[i:j])
			if j >= n {
				return args
			}
			i = j + 1
			continue
		}
		j := i
		for j < n && s[j] > ' ' {
			if s[j] == '"' || isComment(j) || (j+1 < n && s[j] == '/' && s[j+1] == '*') {
				break
			}
			j++
		}
		args = append(args, s[i:j])
		i = j
		if i >= n {
			return args
		}
	}
	return args
}
