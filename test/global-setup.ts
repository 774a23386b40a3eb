// Replaced by the provisioning global setup (installs and checks the servers integration tests need).
export default async function setup(): Promise<void> {}
