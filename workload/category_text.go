package workload

// MarshalText writes the category's name, so that configuration files and
// JSON outputs spell categories as words ("prose", "code", ...).
func (c Category) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a category name (ParseCategory).
func (c *Category) UnmarshalText(b []byte) error {
	k, err := ParseCategory(string(b))
	if err != nil {
		return err
	}
	*c = k
	return nil
}
