"""From what a reader sees to what fixed it, and the library as a whole: symptom-first search
(`diagnose`), similar cases (`similar`), statistics (`stats`) and citations (`citations`)."""
