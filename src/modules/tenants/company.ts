// The name a candidate knows the inviting company by, in the portal's and the e-mail's messages.
// For now the instance's sender name, else its name; per-instance branding replaces this one helper.
export function companyName(instance: { name: string; mailFromName: string | null }): string {
  return instance.mailFromName ?? instance.name;
}
