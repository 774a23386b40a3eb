/** A three-valued verdict as pages show it: a word and a colour class (good / bad / unknown). */
export function verdictWord(valid: unknown): 'VALID' | 'INVALID' | 'UNKNOWN' {
  return valid === true ? 'VALID' : valid === false ? 'INVALID' : 'UNKNOWN';
}

export function verdictClass(valid: unknown): 'good' | 'bad' | 'unknown' {
  return valid === true ? 'good' : valid === false ? 'bad' : 'unknown';
}
