-- Token issuance prunes an account's spent or expired refresh tokens: index them by account.
CREATE INDEX refresh_tokens_account ON refresh_tokens (account_id);
