package dataset

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/uldplab/uldp/core/format"
)

// jsonDataset is the JSON form: {"dim": 2, "users": [{"id": "1",
// "items": [[0.1, 0.2], …]}, …]}.
type jsonDataset struct {
	Dim   int        `json:"dim"`
	Users []jsonUser `json:"users"`
}

type jsonUser struct {
	ID    string      `json:"id"`
	Items [][]float64 `json:"items"`
}

// MarshalJSON writes the dataset with one array per item.
func (d *Dataset) MarshalJSON() ([]byte, error) {
	j := jsonDataset{Dim: d.Dim, Users: make([]jsonUser, d.N())}
	for i, u := range d.Users {
		j.Users[i] = jsonUser{ID: u.ID, Items: make([][]float64, d.Items(i))}
		for k := range j.Users[i].Items {
			j.Users[i].Items[k] = d.Item(i, k)
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the JSON form strictly: unknown fields and items of
// the wrong length are errors. Call Validate afterwards for the remaining
// checks (ids, ragged users).
func (d *Dataset) UnmarshalJSON(b []byte) error {
	var j jsonDataset
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		if strings.HasPrefix(err.Error(), "json: unknown field") {
			return format.Errorf("dataset: %s: a dataset has only \"dim\" and \"users\", each user only \"id\" and \"items\"", strings.TrimPrefix(err.Error(), "json: "))
		}
		return err
	}
	out := Dataset{Dim: j.Dim, Users: make([]User, len(j.Users))}
	total := 0
	for i, u := range j.Users {
		out.Users[i].ID = u.ID
		for k, item := range u.Items {
			if len(item) != j.Dim {
				return format.Errorf("users[%d] (id %q) item %d has %d coordinates but dim = %d: every item needs exactly dim numbers", i, u.ID, k+1, len(item), j.Dim)
			}
			total += len(item)
			if total > MaxValues {
				return format.Errorf("dataset too large: more than %d coordinates (n·m·d): use fewer users, items or dimensions", MaxValues)
			}
			out.Users[i].Points = append(out.Users[i].Points, item...)
		}
	}
	*d = out
	return nil
}
