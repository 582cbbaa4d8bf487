package viz

// ChoiceNames are values as the choices' strings.
func ChoiceNames[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// Preset is a lesson's named setting of its data and controls.
type Preset interface{ PresetName() string }

// PresetNames lists presets' names, in order: a preset control's choices.
func PresetNames[P Preset](ps []P) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.PresetName()
	}
	return out
}

// PresetByName returns the preset called name, one of PresetNames(ps): the form
// checks a choice before a lesson looks it up, so a miss is a bug.
func PresetByName[P Preset](ps []P, name string) P {
	for _, p := range ps {
		if p.PresetName() == name {
			return p
		}
	}
	panic("no preset " + name)
}
