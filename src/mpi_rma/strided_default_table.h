/* Built-in strided method table (rules, docs/strided.md). Regenerate with
 * bench/strided -w FILE and paste the rules here. */
"*   *  *  *  vector\n"
