// The inputs the sign-in, sign-up and password screens share, so browsers and password managers see them alike.
import { Field } from './ui';

interface TextInputProps {
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
}

/** EmailField is the account's email address. */
export function EmailField({ value, onChange, error }: TextInputProps) {
  return <Field label="Email" type="email" autoComplete="email" required value={value} error={error} onChange={(e) => onChange(e.target.value)} />;
}

/** NewPasswordField is a password being chosen: at least 8 characters, offered to the password manager as new. */
export function NewPasswordField({ label, value, onChange, error }: TextInputProps & { label: string }) {
  return (
    <Field
      label={label}
      type="password"
      autoComplete="new-password"
      required
      minLength={8}
      hint="At least 8 characters."
      value={value}
      error={error}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
